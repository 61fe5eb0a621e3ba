//! Hive types and table schemas, parsed from Hive type strings such as
//! `a:int,m:map<string,array<decimal(10,2)>>`, or from Hive DDL (`a int, m map<...>`, or a
//! whole `CREATE TABLE`: [`Schema::from_hive_ddl`], in ddl.rs). RCFile stores no types: the
//! schema comes from the table definition, and columns are matched to the file by position.

use crate::{Error, Result};
use std::fmt;

mod ddl;
pub use ddl::quote_hive_name;

/// A Hive column type.
///
/// ```
/// use colfile::rcfile::HiveType;
/// let t: HiveType = "map<string,array<decimal(10,2)>>".parse().unwrap();
/// assert_eq!(t.to_string(), "map<string,array<decimal(10,2)>>");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HiveType {
    /// `boolean`
    Boolean,
    /// `tinyint` (i8)
    TinyInt,
    /// `smallint` (i16)
    SmallInt,
    /// `int` (i32)
    Int,
    /// `bigint` (i64)
    BigInt,
    /// `float` (f32)
    Float,
    /// `double` (f64)
    Double,
    /// `string`
    String,
    /// `varchar(n)`: at most n characters.
    Varchar(u32),
    /// `char(n)`: exactly n characters, space padded.
    Char(u32),
    /// `binary`
    Binary,
    /// `date`
    Date,
    /// `timestamp` (nanosecond precision, no zone)
    Timestamp,
    /// `decimal(precision, scale)`, precision 1..=38.
    Decimal {
        /// Total digits.
        precision: u8,
        /// Digits after the point.
        scale: u8,
    },
    /// `array<T>`
    Array(Box<HiveType>),
    /// `map<K,V>`
    Map(Box<HiveType>, Box<HiveType>),
    /// `struct<name:type,...>`
    Struct(Vec<Field>),
    /// `uniontype<T0,T1,...>`
    Union(Vec<HiveType>),
}

/// A named field of a struct, or a top-level column.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// Field name as written in the schema.
    pub name: String,
    /// Field type.
    pub ty: HiveType,
}

impl HiveType {
    /// True for types with no children.
    pub fn is_primitive(&self) -> bool {
        !matches!(
            self,
            HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_)
        )
    }
    /// True for string, varchar and char.
    pub fn is_string_like(&self) -> bool {
        matches!(
            self,
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_)
        )
    }
    /// Nesting depth: 0 for primitives, 1 + deepest child otherwise.
    pub fn depth(&self) -> usize {
        match self {
            HiveType::Array(t) => 1 + t.depth(),
            HiveType::Map(k, v) => 1 + k.depth().max(v.depth()),
            HiveType::Struct(fs) => 1 + fs.iter().map(|f| f.ty.depth()).max().unwrap_or(0),
            HiveType::Union(ts) => 1 + ts.iter().map(|t| t.depth()).max().unwrap_or(0),
            _ => 0,
        }
    }
}

impl fmt::Display for HiveType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HiveType::Boolean => f.write_str("boolean"),
            HiveType::TinyInt => f.write_str("tinyint"),
            HiveType::SmallInt => f.write_str("smallint"),
            HiveType::Int => f.write_str("int"),
            HiveType::BigInt => f.write_str("bigint"),
            HiveType::Float => f.write_str("float"),
            HiveType::Double => f.write_str("double"),
            HiveType::String => f.write_str("string"),
            HiveType::Varchar(n) => write!(f, "varchar({n})"),
            HiveType::Char(n) => write!(f, "char({n})"),
            HiveType::Binary => f.write_str("binary"),
            HiveType::Date => f.write_str("date"),
            HiveType::Timestamp => f.write_str("timestamp"),
            HiveType::Decimal { precision, scale } => write!(f, "decimal({precision},{scale})"),
            HiveType::Array(t) => write!(f, "array<{t}>"),
            HiveType::Map(k, v) => write!(f, "map<{k},{v}>"),
            HiveType::Struct(fs) => {
                f.write_str("struct<")?;
                for (i, x) in fs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}:{}", x.name, x.ty)?;
                }
                f.write_str(">")
            }
            HiveType::Union(ts) => {
                f.write_str("uniontype<")?;
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{t}")?;
                }
                f.write_str(">")
            }
        }
    }
}

impl std::str::FromStr for HiveType {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut p = Parser::new(s);
        let t = p.ty()?;
        p.ws();
        if p.pos != p.s.len() {
            return Err(p.err("unexpected text after the type"));
        }
        Ok(t)
    }
}

/// A table schema: named, typed columns in file order.
///
/// ```
/// use colfile::rcfile::{Schema, HiveType};
/// let s: Schema = "id:int, tags:array<string>".parse().unwrap();
/// assert_eq!(s.columns()[1].name, "tags");
/// assert_eq!(s.columns()[1].ty, HiveType::Array(Box::new(HiveType::String)));
/// assert_eq!(s.to_string(), "id:int,tags:array<string>");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Schema {
    columns: Vec<Field>,
}

impl Schema {
    /// A schema from fields.
    pub fn new(columns: Vec<Field>) -> Self {
        Schema { columns }
    }
    /// The columns in order.
    pub fn columns(&self) -> &[Field] {
        &self.columns
    }
    /// Number of columns.
    pub fn len(&self) -> usize {
        self.columns.len()
    }
    /// True when there are no columns.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }
    /// Index of the column called `name` (exact match first, then ASCII case-insensitive, as
    /// Hive column names are case-insensitive).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name == name)
            .or_else(|| {
                self.columns
                    .iter()
                    .position(|c| c.name.eq_ignore_ascii_case(name))
            })
    }
    /// Resolves a list of column names to indices, failing on an unknown name.
    pub fn indices_of<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<usize>> {
        names
            .iter()
            .map(|n| {
                self.index_of(n.as_ref())
                    .ok_or_else(|| Error::schema(format!("no column named {:?}", n.as_ref())))
            })
            .collect()
    }
}

impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:{}", c.name, c.ty)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Schema {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let mut p = Parser::new(s);
        p.ws();
        if p.pos == p.s.len() {
            return Ok(Schema::default());
        }
        let columns = p.fields(None)?;
        if p.pos != p.s.len() {
            return Err(p.err("unexpected text after the schema"));
        }
        Ok(Schema { columns })
    }
}

/// The type a primitive type keyword (lower case) names, if it names one without arguments.
fn primitive_named(word: &str) -> Option<HiveType> {
    Some(match word {
        "boolean" => HiveType::Boolean,
        "tinyint" => HiveType::TinyInt,
        "smallint" => HiveType::SmallInt,
        "int" | "integer" => HiveType::Int,
        "bigint" => HiveType::BigInt,
        "float" => HiveType::Float,
        "double" => HiveType::Double,
        "string" => HiveType::String,
        "binary" => HiveType::Binary,
        "date" => HiveType::Date,
        "timestamp" => HiveType::Timestamp,
        _ => return None,
    })
}

/// `char(n)` or `varchar(n)` (`word` says which), checking Hive's length limits.
fn sized(word: &str, n: u32) -> std::result::Result<HiveType, String> {
    let max = if word == "char" { 255 } else { 65535 };
    if n == 0 || n > max {
        return Err(format!("{word} length must be 1..={max}"));
    }
    Ok(if word == "char" {
        HiveType::Char(n)
    } else {
        HiveType::Varchar(n)
    })
}

/// `decimal(precision, scale)`, checking precision 1..=38 and scale <= precision.
fn decimal(precision: u32, scale: u32) -> std::result::Result<HiveType, String> {
    if !(1..=38).contains(&precision) || scale > precision {
        return Err("decimal precision must be 1..=38 and scale <= precision".into());
    }
    Ok(HiveType::Decimal {
        precision: precision as u8,
        scale: scale as u8,
    })
}

/// `uniontype<...>` of `members`, at most 256 of them.
fn union(members: Vec<HiveType>) -> std::result::Result<HiveType, String> {
    if members.len() > 256 {
        return Err("a uniontype has at most 256 members".into());
    }
    Ok(HiveType::Union(members))
}

const MAX_TYPE_DEPTH: usize = 256;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(s: &'a str) -> Self {
        Parser {
            s: s.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }
    fn err(&self, msg: &str) -> Error {
        let text = String::from_utf8_lossy(self.s);
        Error::schema(format!("{msg} at character {} of {text:?}", self.pos))
    }
    fn ws(&mut self) {
        while self
            .s
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Result<()> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(&format!("expected '{}'", c as char)))
        }
    }
    fn word(&mut self) -> String {
        self.ws();
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.pos += 1;
        }
        String::from_utf8_lossy(self.s.get(start..self.pos).unwrap_or_default()).into_owned()
    }
    /// A field name: anything up to ':' (Hive allows most characters in column names).
    fn name(&mut self) -> Result<String> {
        self.ws();
        let start = self.pos;
        while self
            .s
            .get(self.pos)
            .is_some_and(|&b| !matches!(b, b':' | b',' | b'<' | b'>'))
        {
            self.pos += 1;
        }
        let n = String::from_utf8_lossy(self.s.get(start..self.pos).unwrap_or_default())
            .trim()
            .to_string();
        if n.is_empty() {
            return Err(self.err("expected a field name"));
        }
        Ok(n)
    }
    fn number(&mut self) -> Result<u32> {
        self.ws();
        let w = self.word();
        w.parse::<u32>().map_err(|_| self.err("expected a number"))
    }
    fn fields(&mut self, close: Option<u8>) -> Result<Vec<Field>> {
        let mut out = Vec::new();
        loop {
            if let Some(c) = close {
                if out.is_empty() && self.eat(c) {
                    return Ok(out);
                }
            }
            let name = self.name()?;
            self.expect(b':')?;
            let ty = self.ty()?;
            out.push(Field { name, ty });
            if self.eat(b',') {
                continue;
            }
            match close {
                Some(c) => {
                    self.expect(c)?;
                    return Ok(out);
                }
                None => {
                    self.ws();
                    return Ok(out);
                }
            }
        }
    }
    fn ty(&mut self) -> Result<HiveType> {
        self.depth += 1;
        if self.depth > MAX_TYPE_DEPTH {
            return Err(self.err("type nested too deeply"));
        }
        let t = self.ty_inner();
        self.depth -= 1;
        t
    }
    fn ty_inner(&mut self) -> Result<HiveType> {
        let w = self.word().to_ascii_lowercase();
        if let Some(t) = primitive_named(&w) {
            return Ok(t);
        }
        Ok(match w.as_str() {
            "varchar" | "char" => {
                self.expect(b'(')?;
                let n = self.number()?;
                self.expect(b')')?;
                sized(&w, n).map_err(|m| self.err(&m))?
            }
            "decimal" | "numeric" => {
                let (mut precision, mut scale) = (10u32, 0u32);
                if self.eat(b'(') {
                    precision = self.number()?;
                    if self.eat(b',') {
                        scale = self.number()?;
                    }
                    self.expect(b')')?;
                }
                decimal(precision, scale).map_err(|m| self.err(&m))?
            }
            "array" => {
                self.expect(b'<')?;
                let t = self.ty()?;
                self.expect(b'>')?;
                HiveType::Array(Box::new(t))
            }
            "map" => {
                self.expect(b'<')?;
                let k = self.ty()?;
                self.expect(b',')?;
                let v = self.ty()?;
                self.expect(b'>')?;
                HiveType::Map(Box::new(k), Box::new(v))
            }
            "struct" => {
                self.expect(b'<')?;
                HiveType::Struct(self.fields(Some(b'>'))?)
            }
            "uniontype" => {
                self.expect(b'<')?;
                let mut ts = vec![self.ty()?];
                while self.eat(b',') {
                    ts.push(self.ty()?);
                }
                self.expect(b'>')?;
                union(ts).map_err(|m| self.err(&m))?
            }
            "" => return Err(self.err("expected a type")),
            other => return Err(self.err(&format!("unknown type {other:?}"))),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested() {
        let s: Schema =
            "a:int,m:map<string,array<decimal(10,2)>>,s:struct<x:double,y:uniontype<int,char(3)>>"
                .parse()
                .unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(
            s.to_string(),
            "a:int,m:map<string,array<decimal(10,2)>>,s:struct<x:double,y:uniontype<int,char(3)>>"
        );
        assert_eq!(s.columns()[2].ty.depth(), 2);
    }

    #[test]
    fn rejects_bad() {
        for bad in [
            "a:",
            "a:int,",
            "a:map<int>",
            "a:decimal(39,1)",
            "a:foo",
            "a:array<int",
            "a:int>",
        ] {
            assert!(bad.parse::<Schema>().is_err(), "{bad}");
        }
        let deep = format!("a:{}int{}", "array<".repeat(1000), ">".repeat(1000));
        assert!(deep.parse::<Schema>().is_err());
    }

    #[test]
    fn defaults_and_case() {
        let t: HiveType = "DECIMAL".parse().unwrap();
        assert_eq!(
            t,
            HiveType::Decimal {
                precision: 10,
                scale: 0
            }
        );
        let s: Schema = "ID:Int".parse().unwrap();
        assert_eq!(s.index_of("id"), Some(0));
    }
}
