//! A Ballista cluster of this crate's binaries on 127.0.0.1, for the tests and the scale
//! bench: one `colfile-scheduler` and some `colfile-executor` processes on free ports, killed
//! when the [`Cluster`] is dropped, each logging to a file of its own.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use colfile_datafusion::cluster::remote_context;
use datafusion::prelude::{SessionConfig, SessionContext};

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The processes of a cluster; dropping it kills them.
pub struct Cluster {
    pub port: u16,
    scheduler: Child,
    pub executors: Vec<Child>,
    logs: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for c in self
            .executors
            .iter_mut()
            .chain(std::iter::once(&mut self.scheduler))
        {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(bin: &str, args: &[String], log: &Path) -> Child {
    let out = std::fs::File::create(log).expect("log file");
    Command::new(bin)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("log"))
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"))
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

impl Cluster {
    /// Starts a scheduler and `executors` executors of `vcores` task slots each.
    pub fn start(tag: &str, executors: usize, vcores: usize) -> Cluster {
        let logs =
            std::env::temp_dir().join(format!("colfile-cluster-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&logs);
        std::fs::create_dir_all(&logs).unwrap();
        let port = free_port();
        let mut a = args(&["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"]);
        a.extend(args(&["--bind-port", &port.to_string()]));
        a.extend(args(&["--executor-timeout-seconds", "6"]));
        a.extend(args(&["--expire-dead-executor-interval-seconds", "1"]));
        let scheduler = spawn(
            env!("CARGO_BIN_EXE_colfile-scheduler"),
            &a,
            &logs.join("scheduler.log"),
        );
        let mut cluster = Cluster {
            port,
            scheduler,
            executors: Vec::new(),
            logs,
        };
        for i in 0..executors {
            let work = cluster.logs.join(format!("work{i}"));
            std::fs::create_dir_all(&work).unwrap();
            let mut a = args(&["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"]);
            a.extend(args(&["--bind-port", &free_port().to_string()]));
            a.extend(args(&["--bind-grpc-port", &free_port().to_string()]));
            a.extend(args(&["--bind-health-port", &free_port().to_string()]));
            a.extend(args(&["--scheduler-host", "127.0.0.1"]));
            a.extend(args(&["--scheduler-port", &port.to_string()]));
            a.extend(args(&["--work-dir", &work.to_string_lossy()]));
            a.extend(args(&[
                "--vcores",
                &vcores.to_string(),
                "--executor-heartbeat-interval-seconds",
                "1",
            ]));
            let log = cluster.logs.join(format!("executor{i}.log"));
            let bin = env!("CARGO_BIN_EXE_colfile-executor");
            cluster.executors.push(spawn(bin, &a, &log));
        }
        cluster
    }

    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }

    /// The last lines of the processes' logs, for a failure message.
    pub fn logs(&self) -> String {
        let mut out = String::new();
        for e in std::fs::read_dir(&self.logs).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "log") {
                let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let tail = lines[lines.len().saturating_sub(15)..].join("\n");
                out += &format!("--- {}\n{tail}\n", e.path().display());
            }
        }
        out
    }

    /// A client session, once the scheduler answers and an executor runs a query.
    pub async fn session(&self, config: SessionConfig) -> SessionContext {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            if let Ok(ctx) = remote_context(&self.url(), config.clone()).await {
                let probe = async { ctx.sql("SELECT 1").await?.collect().await };
                if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(10), probe).await {
                    return ctx;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the cluster never answered\n{}",
                self.logs()
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }
}
