//! Tree-model TsFiles: devices of different path depths, non-aligned (sparse: each series
//! has its own timestamps) and aligned, measurements unioned over devices and files. The
//! SQL table is `device, level0.., time, measurements..` (the contract in the brief).

use std::path::Path;

use colfile::source::FileSource;
use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::DataType;
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value};

use super::harness::{files_in, fresh_dir, Case, Files};
use super::model::{Col, Kind, Table, V};
use super::rng::Rng;
use super::ts_table::{compare_written, device_times, edge_times, next_row, writer_options, Run};
use super::values::{arrow_of, codec, from_reader, kind_of, random_value, time_arrow, FIELD_TYPES};

const PATHS: [&str; 7] = [
    "root.sg1.d1",
    "root.sg1.d2",
    "root.sg2.a.b",
    "root.sg2.a.c.e",
    "root.x",
    "root.sg1.d3",
    "root.sg10.d1",
];

pub fn levels(path: &str, k: usize) -> Vec<V> {
    let nodes: Vec<&str> = path.split('.').collect();
    (0..k)
        .map(|i| nodes.get(i).map_or(V::Null, |s| V::Str((*s).to_owned())))
        .collect()
}

pub fn make(rng: &mut Rng, case: usize, root: &Path) -> Case {
    super::values::set_nan(rng.chance(0.5));
    let dir = fresh_dir(root.join(format!("tree{case}")));

    let nmeas = 2 + rng.below(6);
    let meas: Vec<MeasurementSchema> = (0..nmeas)
        .map(|i| {
            let t = *rng.pick(&FIELD_TYPES);
            let (e, c) = codec(t, rng);
            MeasurementSchema::new(&format!("m{i}_{}", t.name().to_lowercase()), t, e, c)
        })
        .collect();
    let mut paths: Vec<&str> = PATHS.to_vec();
    rng.shuffle(&mut paths);
    paths.truncate(2 + rng.below(4));
    struct Dev {
        path: String,
        aligned: bool,
        meas: Vec<usize>,
        presence: Vec<f64>,
    }
    let devs: Vec<Dev> = paths
        .iter()
        .map(|p| {
            let mut ms: Vec<usize> = (0..nmeas).collect();
            rng.shuffle(&mut ms);
            ms.truncate(1 + rng.below(nmeas.min(5)));
            let presence = ms
                .iter()
                .map(|_| *rng.pick(&[1.0, 0.7, 0.3, 0.05]))
                .collect();
            Dev {
                path: (*p).to_owned(),
                aligned: rng.chance(0.3),
                meas: ms,
                presence,
            }
        })
        .collect();

    // Every file gets a device (an empty file is made on purpose below).
    let nfiles = 1 + rng.below(3.min(devs.len()));
    let (options, opt_desc) = writer_options(rng);
    let mut writers: Vec<TsFileWriter<std::io::BufWriter<std::fs::File>>> = (0..nfiles)
        .map(|f| {
            let out = std::io::BufWriter::new(
                std::fs::File::create(dir.join(format!("part-{f}.tsfile"))).unwrap(),
            );
            TsFileWriter::new(out, options.clone()).unwrap()
        })
        .collect();
    let mut registered = vec![vec![false; devs.len()]; nfiles];
    let mut pending: Vec<Run> = Vec::new();
    let mut per_device_file_times = Vec::new();
    for (d, _) in devs.iter().enumerate() {
        let n = 5 + rng.below(200);
        let times = device_times(rng, n);
        let cut = if nfiles > 1 && rng.chance(0.5) {
            1 + rng.below(times.len())
        } else {
            times.len()
        };
        let fa = if d < nfiles { d } else { rng.below(nfiles) };
        let fb = rng.below(nfiles);
        per_device_file_times.push(times[..cut].to_vec());
        per_device_file_times.push(times[cut..].to_vec());
        pending.push((d, times[..cut].iter().map(|&t| (t, fa)).collect()));
        pending.push((d, times[cut..].iter().map(|&t| (t, fb)).collect()));
    }
    // Written rows, as (device, time, values by measurement index).
    let mut written: Vec<(usize, i64, Vec<V>)> = Vec::new();
    let mut cursors = vec![0usize; pending.len()];
    while let Some((d, time, f)) = next_row(rng, &pending, &mut cursors) {
        let dev = &devs[d];
        if !registered[f][d] {
            let ms: Vec<MeasurementSchema> = dev.meas.iter().map(|&m| meas[m].clone()).collect();
            writers[f]
                .register_device(&dev.path, dev.aligned, ms)
                .unwrap();
            registered[f][d] = true;
        }
        let mut owned: Vec<(String, Value)> = Vec::new();
        let mut row = vec![V::Null; nmeas];
        for (k, &m) in dev.meas.iter().enumerate() {
            if rng.chance(dev.presence[k]) {
                let (w, v) = random_value(meas[m].data_type, rng);
                owned.push((meas[m].name.clone(), w));
                row[m] = v;
            }
        }
        let refs: Vec<(&str, colfile::tsfile::ValueRef<'_>)> = owned
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_ref()))
            .collect();
        writers[f]
            .write_record(&dev.path, time, &refs)
            .unwrap_or_else(|e| panic!("write_record: {e}"));
        if dev.aligned || row.iter().any(|v| !matches!(v, V::Null)) {
            written.push((d, time, row));
        }
        if rng.chance(0.01) {
            writers[f].flush().unwrap();
        }
    }
    for w in writers {
        w.finish().unwrap();
    }
    // The last case adds a file without any device: it adds no rows and no columns.
    let empty = case == 5;
    if empty {
        let out = std::fs::File::create(dir.join("part-empty.tsfile")).unwrap();
        TsFileWriter::new(out, options.clone())
            .unwrap()
            .finish()
            .unwrap();
    }

    let k = devs
        .iter()
        .map(|d| d.path.split('.').count())
        .max()
        .unwrap();
    let (rows, order) = read_tree(&dir, k);
    // Columns: device, level0.., time, then measurements in order of first appearance.
    let mut cols = vec![Col {
        name: "device".into(),
        kind: Kind::Str,
        arrow: arrow_schema::DataType::Utf8,
    }];
    for i in 0..k {
        cols.push(Col {
            name: format!("level{i}"),
            kind: Kind::Str,
            arrow: arrow_schema::DataType::Utf8,
        });
    }
    cols.push(Col {
        name: "time".into(),
        kind: Kind::Time,
        arrow: time_arrow(),
    });
    let mut present: Vec<usize> = Vec::new();
    for name in &order {
        let m = meas.iter().position(|x| &x.name == name).unwrap();
        present.push(m);
        let t: DataType = meas[m].data_type;
        cols.push(Col {
            name: name.clone(),
            kind: kind_of(t),
            arrow: arrow_of(t),
        });
    }
    let mut reader_issues = Vec::new();
    let written_rows: Vec<Vec<V>> = written
        .iter()
        .map(|(d, t, vals)| {
            let mut r = vec![V::Str(devs[*d].path.clone())];
            r.extend(levels(&devs[*d].path, k));
            r.push(V::Ts(*t));
            r.extend(present.iter().map(|&m| vals[m].clone()));
            r
        })
        .collect();
    let skip: Vec<usize> = present
        .iter()
        .enumerate()
        .filter(|(_, &m)| super::ts_table::lossy(meas[m].data_type, meas[m].encoding))
        .map(|(i, _)| k + 2 + i)
        .collect();
    compare_written(&written_rows, &rows, &skip, &mut reader_issues);

    let mut extra = vec![Vec::new(); cols.len()];
    extra[k + 1] = edge_times(&per_device_file_times, options.page_max_points);
    let mut group_cols = vec![0];
    group_cols.extend(2..=k.min(4));
    let table = Table {
        order_key: vec![k + 1, 0],
        group_cols,
        extra_literals: extra,
        like: Some((
            0,
            vec![
                "root.sg1.".into(),
                "root.sg2.a.".into(),
                "root.".into(),
                "root.sg1".into(),
                "root.x".into(),
            ],
        )),
        cols,
        rows,
        float_minmax: !super::values::with_nan(),
    };
    let desc = format!(
        "tree-model case {case}{}: {} ({nfiles} files{}, {} rows; {opt_desc}); devices {}; measurements {}",
        super::values::nan_note(),
        dir.display(),
        if empty { " plus part-empty.tsfile, which has no devices" } else { "" },
        table.rows.len(),
        devs.iter()
            .map(|d| format!(
                "{}{}[{}]",
                d.path,
                if d.aligned { "(aligned)" } else { "" },
                d.meas.iter().zip(&d.presence).map(|(&m, p)| format!("{}@{p}", meas[m].name)).collect::<Vec<_>>().join(",")
            ))
            .collect::<Vec<_>>()
            .join(" "),
        meas.iter().map(|m| format!("{}:{}:{}", m.name, m.encoding, m.compression)).collect::<Vec<_>>().join(", ")
    );
    Case {
        dir,
        name: "tree".into(),
        files: Files::TsFile,
        table,
        desc,
        reader_issues,
    }
}

/// A row as the plain reader gives it: device, time, and (measurement, value) pairs.
type RawRow = (String, i64, Vec<(String, V)>);

/// Every tree row of the files in `dir` through the plain reader, and the measurement
/// names in order of first appearance.
fn read_tree(dir: &Path, k: usize) -> (Vec<Vec<V>>, Vec<String>) {
    let mut names: Vec<String> = Vec::new();
    let mut raw: Vec<RawRow> = Vec::new();
    for f in files_in(dir) {
        let r = TsFileReader::open(FileSource::open(&f).unwrap()).unwrap();
        for b in r.query(&Query::all()).unwrap() {
            let b = b.unwrap();
            let device = b.device.to_string();
            let cols: Vec<(String, Vec<V>)> = b
                .columns
                .iter()
                .map(|c| {
                    let mut cur = c.cursor();
                    (
                        c.name.clone(),
                        (0..b.len())
                            .map(|_| from_reader(c.data_type, cur.next_value()))
                            .collect(),
                    )
                })
                .collect();
            for (n, _) in &cols {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            for (i, &t) in b.times.iter().enumerate() {
                raw.push((
                    device.clone(),
                    t,
                    cols.iter()
                        .map(|(n, c)| (n.clone(), c[i].clone()))
                        .collect(),
                ));
            }
        }
    }
    let rows = raw
        .into_iter()
        .map(|(device, t, vals)| {
            let mut r = vec![V::Str(device.clone())];
            r.extend(levels(&device, k));
            r.push(V::Ts(t));
            for n in &names {
                r.push(
                    vals.iter()
                        .find(|(x, _)| x == n)
                        .map_or(V::Null, |(_, v)| v.clone()),
                );
            }
            r
        })
        .collect();
    (rows, names)
}

/// The columns before the measurements must be exactly `device, level0.., time`.
pub fn check_prefix(t: &Table) -> Option<String> {
    let names: Vec<&str> = t.cols.iter().map(|c| c.name.as_str()).collect();
    let k = names.iter().filter(|n| n.starts_with("level")).count();
    let mut want = vec!["device".to_string()];
    want.extend((0..k).map(|i| format!("level{i}")));
    want.push("time".into());
    (names.len() < want.len()
        || names[..want.len()] != want.iter().map(String::as_str).collect::<Vec<_>>()[..])
        .then(|| {
            format!(
                "tree columns start {:?}, want {want:?}",
                &names[..want.len().min(names.len())]
            )
        })
}
