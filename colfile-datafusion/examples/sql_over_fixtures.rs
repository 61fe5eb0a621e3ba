//! SQL over the repository's fixtures: a TsFile table and an RCFile table, a filter, a
//! GROUP BY and a join. `cargo run -p colfile-datafusion --example sql_over_fixtures`

use colfile::rcfile::{Schema, Serde};
use colfile_datafusion::{register_rcfile, register_tsfile, RcFileOptions, TsFileOptions};
use datafusion::prelude::SessionContext;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures");
    let ctx = SessionContext::new();

    // A TsFile table: time, the tags city and station, the fields temp, count, status.
    register_tsfile(
        &ctx,
        "weather",
        &format!("{fixtures}/tsfile/basic.tsfile"),
        TsFileOptions::default(),
    )?;
    // An RCFile table: Hive's schema and serde come from the table definition.
    let schema: Schema = "id:int,same:string,grp:bigint,txt:string".parse()?;
    let rc = RcFileOptions::new(schema, Serde::text());
    register_rcfile(
        &ctx,
        "groups",
        &format!("{fixtures}/rcfile/multi_group_text.rc"),
        rc,
    )?;

    ctx.sql(
        "SELECT city, count(*) AS readings, avg(temp) AS mean, max(temp) AS hottest \
         FROM weather WHERE time >= to_timestamp_millis(1700000001000) AND status = 'ok' GROUP BY city ORDER BY city",
    )
    .await?
    .show()
    .await?;

    ctx.sql(
        "SELECT g.grp, count(*) AS n, min(w.temp) AS coldest FROM groups g \
         JOIN weather w ON g.id = w.count GROUP BY g.grp ORDER BY g.grp",
    )
    .await?
    .show()
    .await?;
    Ok(())
}
