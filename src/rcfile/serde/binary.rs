//! `LazyBinaryColumnarSerDe` (placeholder; being written).
use crate::rcfile::{HiveType, Value};
use crate::{Error, Result};

/// Binary serde properties.
#[derive(Debug, Clone, Default)]
pub struct BinaryOptions {}

/// The binary serde.
#[derive(Debug, Clone)]
pub struct BinarySerde {}

impl BinarySerde {
    /// A binary serde.
    pub fn new(_o: BinaryOptions) -> Self {
        BinarySerde {}
    }
    /// Decodes a cell.
    pub fn decode(&self, _ty: &HiveType, _cell: &[u8]) -> Result<Value> {
        Err(Error::unsupported("binary serde not written yet"))
    }
    /// Encodes a value.
    pub fn encode(&self, _ty: &HiveType, _v: &Value, _out: &mut Vec<u8>) -> Result<()> {
        Err(Error::unsupported("binary serde not written yet"))
    }
}
