//! The descriptions a codec writes: a table (how its files were named and how they are
//! read) and the options of each format, as plain data that JSON carries. Options that
//! hold live values (a Hive serde, a time zone's rules) are written as the settings they
//! are made from, and made again when read.

use arrow_schema::{Field, TimeUnit};
use colfile::rcfile::serde::{
    BinaryOptions, BinarySerde, Calendar, EmptyStringMarker, NestingLevels, TextOptions, TextSerde,
    TimeZone,
};
use colfile::rcfile::Serde;
use serde::{Deserialize, Serialize};

use crate::listing::{Origin, TableFile};
use crate::rcfile::RcFileOptions;
use crate::tsfile::TsFileOptions;

/// A table: its format, how its files were named, and its options.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub(crate) enum TableSpec {
    TsFile {
        origin: OriginSpec,
        options: TsOptions,
    },
    RcFile {
        origin: OriginSpec,
        options: RcOptions,
    },
}

/// [`Origin`] as data.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub(crate) enum OriginSpec {
    Location(String),
    Files(Vec<FileRef>),
}

/// A file by path (or URL) and length.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct FileRef {
    pub path: String,
    pub len: u64,
}

impl From<&TableFile> for FileRef {
    fn from(f: &TableFile) -> Self {
        FileRef {
            path: f.path.to_string_lossy().into_owned(),
            len: f.len,
        }
    }
}

impl From<&FileRef> for TableFile {
    fn from(f: &FileRef) -> Self {
        TableFile {
            path: f.path.clone().into(),
            len: f.len,
        }
    }
}

impl From<&Origin> for OriginSpec {
    fn from(o: &Origin) -> Self {
        match o {
            Origin::Location(l) => OriginSpec::Location(l.clone()),
            Origin::Files(f) => OriginSpec::Files(f.iter().map(FileRef::from).collect()),
        }
    }
}

/// [`TsFileOptions`] as data.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub(crate) struct TsOptions {
    table: Option<String>,
    time_unit: TimeUnit,
    lossy_utf8: bool,
    trust_statistics: bool,
    apply_mods: bool,
    merge: bool,
    partition_columns: Vec<Field>,
}

impl From<&TsFileOptions> for TsOptions {
    fn from(o: &TsFileOptions) -> Self {
        TsOptions {
            table: o.table.clone(),
            time_unit: o.time_unit,
            lossy_utf8: o.lossy_utf8,
            trust_statistics: o.trust_statistics,
            apply_mods: o.apply_mods,
            merge: o.merge,
            partition_columns: o.partition_columns.clone(),
        }
    }
}

impl From<TsOptions> for TsFileOptions {
    fn from(o: TsOptions) -> Self {
        TsFileOptions {
            table: o.table,
            time_unit: o.time_unit,
            lossy_utf8: o.lossy_utf8,
            trust_statistics: o.trust_statistics,
            apply_mods: o.apply_mods,
            merge: o.merge,
            partition_columns: o.partition_columns,
        }
    }
}

/// [`RcFileOptions`] as data: the Hive schema as its text, the serde as its settings.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub(crate) struct RcOptions {
    schema: String,
    serde: SerdeSpec,
    split_size: u64,
    timestamp_unit: TimeUnit,
    lossy_utf8: bool,
    partition_columns: Vec<Field>,
}

/// A Hive serde's settings.
#[derive(Serialize, Deserialize, Debug, Clone)]
enum SerdeSpec {
    Text {
        null_sequence: Vec<u8>,
        field_delim: u8,
        collection_delim: u8,
        mapkey_delim: u8,
        /// 0 legacy, 1 extended, 2 extended additional.
        nesting: u8,
        escape: Option<u8>,
        escape_crlf: bool,
        last_column_takes_rest: bool,
        extended_boolean_literal: bool,
    },
    Binary {
        /// As [`TimeZone::parse`] reads it.
        timestamp_zone: String,
        hybrid_calendar: bool,
        trino_empty_varchar: bool,
    },
}

impl TryFrom<&RcFileOptions> for RcOptions {
    type Error = colfile::Error;

    fn try_from(o: &RcFileOptions) -> colfile::Result<Self> {
        let serde = match &o.serde {
            Serde::Text(t) => {
                let t = t.options();
                SerdeSpec::Text {
                    null_sequence: t.null_sequence.clone(),
                    field_delim: t.field_delim,
                    collection_delim: t.collection_delim,
                    mapkey_delim: t.mapkey_delim,
                    nesting: match t.nesting {
                        NestingLevels::Legacy => 0,
                        NestingLevels::Extended => 1,
                        NestingLevels::ExtendedAdditional => 2,
                    },
                    escape: t.escape,
                    escape_crlf: t.escape_crlf,
                    last_column_takes_rest: t.last_column_takes_rest,
                    extended_boolean_literal: t.extended_boolean_literal,
                }
            }
            Serde::Binary(b) => {
                let b = b.options();
                SerdeSpec::Binary {
                    timestamp_zone: b.timestamp_zone.to_string(),
                    hybrid_calendar: b.calendar == Calendar::Hybrid,
                    trino_empty_varchar: b.empty_varchar == EmptyStringMarker::Trino,
                }
            }
            other => {
                return Err(colfile::Error::unsupported(format!(
                    "sending the {} serde to another process",
                    other.short_name()
                )))
            }
        };
        Ok(RcOptions {
            schema: o.schema.to_string(),
            serde,
            split_size: o.split_size,
            timestamp_unit: o.timestamp_unit,
            lossy_utf8: o.lossy_utf8,
            partition_columns: o.partition_columns.clone(),
        })
    }
}

impl TryFrom<RcOptions> for RcFileOptions {
    type Error = colfile::Error;

    fn try_from(o: RcOptions) -> colfile::Result<Self> {
        let serde = match o.serde {
            SerdeSpec::Text {
                null_sequence,
                field_delim,
                collection_delim,
                mapkey_delim,
                nesting,
                escape,
                escape_crlf,
                last_column_takes_rest,
                extended_boolean_literal,
            } => {
                let mut t = TextOptions::default();
                t.null_sequence = null_sequence;
                t.field_delim = field_delim;
                t.collection_delim = collection_delim;
                t.mapkey_delim = mapkey_delim;
                t.nesting = match nesting {
                    0 => NestingLevels::Legacy,
                    1 => NestingLevels::Extended,
                    _ => NestingLevels::ExtendedAdditional,
                };
                t.escape = escape;
                t.escape_crlf = escape_crlf;
                t.last_column_takes_rest = last_column_takes_rest;
                t.extended_boolean_literal = extended_boolean_literal;
                Serde::Text(TextSerde::new(t))
            }
            SerdeSpec::Binary {
                timestamp_zone,
                hybrid_calendar,
                trino_empty_varchar,
            } => {
                let mut b = BinaryOptions::default();
                b.timestamp_zone = TimeZone::parse(&timestamp_zone)?;
                b.calendar = match hybrid_calendar {
                    true => Calendar::Hybrid,
                    false => Calendar::Proleptic,
                };
                b.empty_varchar = match trino_empty_varchar {
                    true => EmptyStringMarker::Trino,
                    false => EmptyStringMarker::Hive,
                };
                Serde::Binary(BinarySerde::new(b))
            }
        };
        Ok(RcFileOptions {
            schema: o.schema.parse()?,
            serde,
            split_size: o.split_size,
            timestamp_unit: o.timestamp_unit,
            lossy_utf8: o.lossy_utf8,
            partition_columns: o.partition_columns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through_json(o: &RcFileOptions) -> RcFileOptions {
        let spec = RcOptions::try_from(o).unwrap();
        let json = serde_json::to_string(&spec).unwrap();
        let back: RcOptions = serde_json::from_str(&json).unwrap();
        RcFileOptions::try_from(back).unwrap()
    }

    #[test]
    fn rcfile_options_keep_every_serde_setting() {
        let schema: colfile::rcfile::Schema =
            "a:int,b:timestamp,c:map<string,int>".parse().unwrap();
        let mut b = BinaryOptions::default();
        b.timestamp_zone = TimeZone::parse("+02:30").unwrap();
        b.calendar = Calendar::Hybrid;
        b.empty_varchar = EmptyStringMarker::Trino;
        let mut o = RcFileOptions::new(schema.clone(), Serde::Binary(BinarySerde::new(b.clone())));
        o.split_size = 1234;
        o.timestamp_unit = TimeUnit::Nanosecond;
        o.lossy_utf8 = true;
        o.partition_columns = vec![Field::new("dt", arrow_schema::DataType::Date32, true)];
        let back = through_json(&o);
        assert_eq!(back.schema.to_string(), schema.to_string());
        assert!(matches!(&back.serde, Serde::Binary(x) if x.options() == &b));
        assert_eq!(back.split_size, 1234);
        assert_eq!(back.timestamp_unit, TimeUnit::Nanosecond);
        assert!(back.lossy_utf8);
        assert_eq!(back.partition_columns, o.partition_columns);

        let props = [
            ("field.delim", "|"),
            ("serialization.null.format", "NULL"),
            ("escape.delim", "\\"),
            ("colelction.delim", "9"),
            ("hive.serialization.extend.nesting.levels", "true"),
            ("serialization.last.column.takes.rest", "true"),
        ];
        let t = TextOptions::from_properties(props).unwrap();
        let o = RcFileOptions::new(schema, Serde::Text(TextSerde::new(t.clone())));
        assert!(matches!(&through_json(&o).serde, Serde::Text(x) if x.options() == &t));
    }
}
