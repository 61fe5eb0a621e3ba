//! `ColumnarSerDe` (placeholder; being written).
use crate::rcfile::{HiveType, Value};
use crate::{Error, Result};

/// Text serde properties.
#[derive(Debug, Clone, Default)]
pub struct TextOptions {}

/// The text serde.
#[derive(Debug, Clone)]
pub struct TextSerde {}

impl TextSerde {
    /// A text serde.
    pub fn new(_o: TextOptions) -> Self {
        TextSerde {}
    }
    /// Decodes a cell.
    pub fn decode(&self, _ty: &HiveType, _cell: &[u8]) -> Result<Value> {
        Err(Error::unsupported("text serde not written yet"))
    }
    /// Encodes a value.
    pub fn encode(&self, _ty: &HiveType, _v: &Value, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::unsupported("text serde not written yet"))
    }
}
