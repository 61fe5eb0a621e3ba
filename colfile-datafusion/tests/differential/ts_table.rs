//! Table-model TsFiles: random schemas, devices (tag tuples with nulls and empty strings),
//! times (negative, huge, i64 extremes), values; small pages, flushes mid-way (several chunk
//! groups), a small index fan-out; one to three files per table. The rows SQL must return
//! are read back with the plain reader.

use std::collections::BTreeSet;
use std::path::Path;

use colfile::source::FileSource;
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, WriterOptions};

use super::harness::{files_in, fresh_dir, Case, Files};
use super::model::{cmp_row, matches, show_row, Col, Kind, Table, V};
use super::rng::Rng;
use super::values::{arrow_of, codec, kind_of, random_value, time_arrow, FIELD_TYPES};

pub fn writer_options(rng: &mut Rng) -> (WriterOptions, String) {
    let points = *rng.pick(&[2usize, 3, 5, 16, 64]);
    let bytes = *rng.pick(&[48usize, 256, 4096, 65536]);
    let memory = *rng.pick(&[1024usize, 8192, 1 << 20]);
    let degree = *rng.pick(&[2usize, 3, 256]);
    let o = WriterOptions::default()
        .with_page_max_points(points)
        .with_page_max_bytes(bytes)
        .with_memory_threshold(memory)
        .with_max_index_degree(degree)
        .with_threads(1);
    (
        o,
        format!("page_max_points={points} page_max_bytes={bytes} memory_threshold={memory} index_degree={degree}"),
    )
}

/// Times of one device: increasing, from a random start (sometimes i64::MIN, near
/// i64::MAX, negative), steps of 1-3 with some jumps; sometimes ending at i64::MAX.
pub fn device_times(rng: &mut Rng, n: usize) -> Vec<i64> {
    let start = match rng.below(6) {
        0 => i64::MIN,
        1 => i64::MAX - 3 * n as i64 - 2_000_000,
        2 => -(rng.below(5000) as i64),
        3 => 1_700_000_000_000 + rng.below(1000) as i64,
        _ => rng.range(-1_000, 3_000),
    };
    let mut out = Vec::with_capacity(n);
    let mut t = start;
    for i in 0..n {
        out.push(t);
        if i + 1 < n {
            let step = if rng.chance(0.03) {
                rng.range(1, 1_000_000)
            } else {
                rng.range(1, 3)
            };
            t = t.saturating_add(step);
            if t == i64::MAX {
                break;
            }
        }
    }
    if rng.chance(0.15) && *out.last().unwrap() < i64::MAX {
        out.push(i64::MAX);
    }
    out
}

/// Times around page edges: for each device and file, the times at positions k*P-1, k*P,
/// k*P+1 and the first and last, each also ±1.
pub fn edge_times(per_device: &[Vec<i64>], points: usize) -> Vec<V> {
    let mut set = BTreeSet::new();
    for times in per_device {
        for (i, &t) in times.iter().enumerate() {
            let k = i % points;
            if k == 0 || k == 1 || k == points - 1 || i + 1 == times.len() {
                set.insert(t);
                set.insert(t.saturating_add(1));
                set.insert(t.saturating_sub(1));
            }
        }
    }
    let all: Vec<i64> = set.into_iter().filter(|&t| t != i64::MIN).collect();
    // Keep the literal pool small but spread over the range.
    let step = (all.len() / 300).max(1);
    all.iter().step_by(step).map(|&t| V::Ts(t)).collect()
}

/// A device's rows bound for files: (device, [(time, file)]). A device has two runs, its
/// earlier rows first.
pub type Run = (usize, Vec<(i64, usize)>);

/// The next row to write, as (device, time, file): from a random run, keeping each run's
/// order and a device's first run before its second (which matters when both go to the
/// same file); `None` when every run is written.
pub fn next_row(rng: &mut Rng, runs: &[Run], cursors: &mut [usize]) -> Option<(usize, i64, usize)> {
    let live: Vec<usize> = (0..runs.len())
        .filter(|&i| {
            cursors[i] < runs[i].1.len() && (i % 2 == 0 || cursors[i - 1] >= runs[i - 1].1.len())
        })
        .collect();
    if live.is_empty() {
        return None;
    }
    let i = *rng.pick(&live);
    let (d, rows) = &runs[i];
    let (time, f) = rows[cursors[i]];
    cursors[i] += 1;
    Some((*d, time, f))
}

pub fn make(rng: &mut Rng, case: usize, root: &Path) -> Case {
    let name = *rng.pick(&["t", "weather", "m"]);
    super::values::set_nan(rng.chance(0.5));
    let dir = fresh_dir(root.join(format!("table{case}")));

    let ntags = 1 + rng.below(3);
    let nfields = 1 + rng.below(6);
    let mut columns = Vec::new();
    for i in 0..ntags {
        let t = if rng.chance(0.5) {
            DataType::String
        } else {
            DataType::Text
        };
        columns.push(TableColumn::new(&format!("tag{i}"), t, ColumnCategory::Tag));
    }
    for i in 0..nfields {
        let t = *rng.pick(&FIELD_TYPES);
        let (e, c) = codec(t, rng);
        let n = format!("f{i}_{}", t.name().to_lowercase());
        columns.push(TableColumn::new(&n, t, ColumnCategory::Field).with_codec(e, c));
    }
    let schema = TableSchema::new(name, columns.clone());
    let field_types: Vec<DataType> = columns[ntags..]
        .iter()
        .map(|c| c.schema.data_type)
        .collect();
    let null_rate: Vec<f64> = (0..nfields)
        .map(|_| *rng.pick(&[0.0, 0.1, 0.5, 0.9, 1.0]))
        .collect();

    // Devices: distinct tag tuples.
    let pool: [Option<&str>; 8] = [
        Some("a"),
        Some("b"),
        Some("c"),
        Some(""),
        None,
        Some("x y"),
        Some("Zürich"),
        Some("o'k"),
    ];
    let ndev = 2 + rng.below(5);
    let mut devices: Vec<Vec<Option<String>>> = Vec::new();
    for _ in 0..ndev * 4 {
        let d: Vec<Option<String>> = (0..ntags)
            .map(|_| rng.pick(&pool).map(str::to_owned))
            .collect();
        if !devices.contains(&d) {
            devices.push(d);
        }
        if devices.len() == ndev {
            break;
        }
    }

    let nfiles = 1 + rng.below(3);
    let (options, opt_desc) = writer_options(rng);
    // File 0 has every field; later files may lack some (the table is their union).
    let file_fields: Vec<Vec<bool>> = (0..nfiles)
        .map(|f| (0..nfields).map(|_| f == 0 || !rng.chance(0.25)).collect())
        .collect();
    let mut writers: Vec<TsFileWriter<std::io::BufWriter<std::fs::File>>> = (0..nfiles)
        .map(|f| {
            let out = std::io::BufWriter::new(
                std::fs::File::create(dir.join(format!("part-{f}.tsfile"))).unwrap(),
            );
            let mut w = TsFileWriter::new(out, options.clone()).unwrap();
            let cols: Vec<TableColumn> = columns
                .iter()
                .enumerate()
                .filter(|(i, _)| *i < ntags || file_fields[f][*i - ntags])
                .map(|(_, c)| c.clone())
                .collect();
            w.register_table(TableSchema::new(name, cols)).unwrap();
            w
        })
        .collect();

    // Rows per device, split over files by time (a device's later rows may go to another file).
    let mut written: Vec<Vec<V>> = Vec::new();
    let mut pending: Vec<Run> = Vec::new();
    let mut per_device_file_times: Vec<Vec<i64>> = Vec::new();
    for (d, _) in devices.iter().enumerate() {
        let n = 5 + rng.below(250);
        let times = device_times(rng, n);
        let cut = if nfiles > 1 && rng.chance(0.5) {
            rng.below(times.len())
        } else {
            times.len()
        };
        let (fa, fb) = (rng.below(nfiles), rng.below(nfiles));
        let a: Vec<(i64, usize)> = times[..cut].iter().map(|&t| (t, fa)).collect();
        let b: Vec<(i64, usize)> = times[cut..].iter().map(|&t| (t, fb)).collect();
        per_device_file_times.push(times[..cut].to_vec());
        per_device_file_times.push(times[cut..].to_vec());
        pending.push((d, a));
        pending.push((d, b));
    }
    let mut cursors: Vec<usize> = vec![0; pending.len()];
    while let Some((d, time, f)) = next_row(rng, &pending, &mut cursors) {
        let mut values: Vec<Value> = devices[d]
            .iter()
            .map(|t| t.as_deref().map_or(Value::Null, Value::string))
            .collect();
        let mut row = vec![V::Ts(time)];
        row.extend(devices[d].iter().map(|t| t.clone().map_or(V::Null, V::Str)));
        for (k, &t) in field_types.iter().enumerate() {
            let (w, v) = if rng.chance(null_rate[k]) {
                (Value::Null, V::Null)
            } else {
                random_value(t, rng)
            };
            if file_fields[f][k] {
                values.push(w);
                row.push(v);
            } else {
                row.push(V::Null);
            }
        }
        writers[f]
            .write_row(name, time, &values)
            .unwrap_or_else(|e| panic!("write_row: {e}"));
        written.push(row);
        if rng.chance(0.01) {
            writers[f].flush().unwrap();
        }
    }
    for w in writers {
        w.finish().unwrap();
    }

    // The table as SQL must show it.
    let mut cols = vec![Col {
        name: "time".into(),
        kind: Kind::Time,
        arrow: time_arrow(),
    }];
    for c in &columns {
        let (kind, arrow) = if c.category == ColumnCategory::Tag {
            (Kind::Str, arrow_schema::DataType::Utf8)
        } else {
            (kind_of(c.schema.data_type), arrow_of(c.schema.data_type))
        };
        cols.push(Col {
            name: c.schema.name.clone(),
            kind,
            arrow,
        });
    }
    let rows = read_table(&dir, name, &schema);
    let mut reader_issues = Vec::new();
    let lossy: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| lossy(c.schema.data_type, c.schema.encoding))
        .map(|(i, _)| i + 1)
        .collect();
    compare_written(&written, &rows, &lossy, &mut reader_issues);
    let mut extra = vec![Vec::new(); cols.len()];
    extra[0] = edge_times(&per_device_file_times, options.page_max_points);
    let table = Table {
        order_key: (0..=ntags).collect(),
        group_cols: (1..=ntags)
            .chain(
                (0..nfields)
                    .filter(|&k| matches!(field_types[k], DataType::Boolean))
                    .map(|k| k + 1 + ntags),
            )
            .collect(),
        extra_literals: extra,
        like: None,
        cols,
        rows,
        float_minmax: !super::values::with_nan(),
    };
    let desc = format!(
        "table-model case {case}{}: {} ({nfiles} files, {} devices, {} rows; {opt_desc}); schema {}",
        super::values::nan_note(),
        dir.display(),
        devices.len(),
        table.rows.len(),
        columns
            .iter()
            .map(|c| format!(
                "{}:{}:{:?}:{}:{}{}",
                c.schema.name,
                c.schema.data_type,
                c.category,
                c.schema.encoding,
                c.schema.compression,
                if c.category == ColumnCategory::Field {
                    let k = columns.iter().position(|x| x == c).unwrap() - ntags;
                    format!(" nulls={}", null_rate[k])
                } else {
                    String::new()
                }
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Case {
        dir,
        name: name.to_owned(),
        files: Files::TsFile,
        table,
        desc,
        reader_issues,
    }
}

/// Whether TsFile stores this float column rounded (TS_2DIFF/RLE floats keep
/// `max_point_number` decimals).
pub fn lossy(t: DataType, e: colfile::tsfile::format::Encoding) -> bool {
    use colfile::tsfile::format::Encoding as E;
    matches!(t, DataType::Float | DataType::Double) && matches!(e, E::Ts2Diff | E::Rle)
}

/// Every row of `table` in the files of `dir`, through the plain reader, as
/// `time, tags..., fields...` in schema order.
fn read_table(dir: &Path, name: &str, schema: &TableSchema) -> Vec<Vec<V>> {
    let mut rows = Vec::new();
    for f in files_in(dir) {
        let r = TsFileReader::open(FileSource::open(&f).unwrap()).unwrap();
        for b in r.query(&Query::all().table(name)).unwrap() {
            let b = b.unwrap();
            let mut cursors: Vec<_> = b.columns.iter().map(|c| (c, c.cursor())).collect();
            let mut per_col: Vec<Vec<V>> = Vec::new();
            for c in &schema.columns {
                let n = &c.schema.name;
                let col: Vec<V> = if c.category == ColumnCategory::Tag {
                    let v = b
                        .tags
                        .iter()
                        .find(|(t, _)| t == n)
                        .and_then(|(_, v)| v.clone());
                    vec![v.map_or(V::Null, V::Str); b.len()]
                } else if let Some((col, cur)) = cursors.iter_mut().find(|(col, _)| &col.name == n)
                {
                    (0..b.len())
                        .map(|_| super::values::from_reader(col.data_type, cur.next_value()))
                        .collect()
                } else {
                    vec![V::Null; b.len()]
                };
                per_col.push(col);
            }
            for (i, &t) in b.times.iter().enumerate() {
                let mut row = vec![V::Ts(t)];
                row.extend(per_col.iter().map(|c| c[i].clone()));
                rows.push(row);
            }
        }
    }
    rows
}

/// Reports where the plain reader's rows are not the written ones (as multisets).
/// Columns in `skip` are left out: FLOAT/DOUBLE under TS_2DIFF or RLE keep only
/// `max_point_number` (2) decimals, by TsFile's design.
pub fn compare_written(
    written: &[Vec<V>],
    read: &[Vec<V>],
    skip: &[usize],
    issues: &mut Vec<String>,
) {
    let blank = |rows: &[Vec<V>]| -> Vec<Vec<V>> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, v)| {
                        if skip.contains(&i) {
                            V::Null
                        } else {
                            v.clone()
                        }
                    })
                    .collect()
            })
            .collect()
    };
    let mut w = blank(written);
    let mut r = blank(read);
    w.sort_by(|a, b| cmp_row(a, b));
    r.sort_by(|a, b| cmp_row(a, b));
    if w.len() != r.len() {
        issues.push(format!(
            "plain reader: {} rows read, {} written",
            r.len(),
            w.len()
        ));
    }
    for (a, b) in w.iter().zip(&r) {
        if !(a.len() == b.len() && a.iter().zip(b).all(|(x, y)| matches(x, y))) {
            issues.push(format!(
                "plain reader: wrote {} read {}",
                show_row(a),
                show_row(b)
            ));
            if issues.len() > 5 {
                return;
            }
        }
    }
}
