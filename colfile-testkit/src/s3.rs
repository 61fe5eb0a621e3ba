//! A real S3-compatible server for tests: PyPI's `moto` standalone server (`moto_server`),
//! installed on demand into `target/moto-venv`, started on 127.0.0.1 by a test and killed
//! when its [`MotoServer`] is dropped; plus the few S3 calls tests need to seed and check it.
//!
//! * Finding the server: [`moto_server_bin`] uses `COLFILE_MOTO_SERVER` if set (CI installs
//!   moto with `.ci/moto.sh` and exports it), else `target/moto-venv` (pinned
//!   `moto[server]==`[`MOTO_VERSION`]), installing it there the first time (about 25 s on
//!   2 cores). The install is serialised across threads (a `OnceLock`) and across test
//!   binaries (a lock directory `target/moto-venv.lock` made with `create_dir`); a venv
//!   counts as installed only once the marker file written after a successful pip run is
//!   there, so a half-installed one is never used (it is removed and installed again). A
//!   venv cannot be renamed into place (its scripts name their own path), hence the marker.
//! * Each [`MotoServer::start`] is its own process on its own free port, so parallel tests
//!   never share buckets. Start-up to the first HTTP answer takes about 0.4-0.6 s here.
//!   Its output goes to `target/moto-logs/moto-PORT.log`, whose tail is in the panic message
//!   if it never answers.
//! * The HTTP client below is a minimal HTTP/1.1 one over `std::net::TcpStream`
//!   (path-style URLs, `Connection: close`). moto checks no signature, but it answers 403
//!   to an *unsigned* GET of an existing object (anonymous access to a private object), so
//!   every request carries a dummy SigV4 `Authorization` header naming `us-east-1`.
//!   moto also answers 400 to a PUT whose Content-Type is a form, so bodies go as
//!   `application/octet-stream`. Range GETs work: `bytes=10-19` gives 206 and those bytes.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use crate::repo_root;

/// The moto release installed into `target/moto-venv` (and by `.ci/moto.sh`).
pub const MOTO_VERSION: &str = "5.2.5";

const ENV_VAR: &str = "COLFILE_MOTO_SERVER";
/// A dummy SigV4 header: moto does not verify it, but treats the request as authenticated.
const AUTH: &str = "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/aws4_request, \
                    SignedHeaders=host, Signature=0000";

/// An S3 client for `bucket` at `endpoint` (a [`MotoServer`]'s, or a proxy's in front of
/// it), with dummy credentials and retries short enough for tests (3, from 10 ms).
pub fn s3_store(endpoint: &str, bucket: &str) -> std::sync::Arc<dyn object_store::ObjectStore> {
    use object_store::{BackoffConfig, RetryConfig};
    let retry = RetryConfig {
        max_retries: 3,
        backoff: BackoffConfig {
            init_backoff: Duration::from_millis(10),
            max_backoff: Duration::from_millis(100),
            base: 2.0,
        },
        retry_timeout: Duration::from_secs(10),
    };
    let s3 = object_store::aws::AmazonS3Builder::new()
        .with_endpoint(endpoint)
        .with_bucket_name(bucket)
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .with_allow_http(true)
        .with_retry(retry)
        .build()
        .expect("s3 client");
    std::sync::Arc::new(s3)
}

/// The `moto_server` executable: `$COLFILE_MOTO_SERVER`, else `target/moto-venv`'s,
/// installed there first if needed. Panics with the failing step's output if it can't.
pub fn moto_server_bin() -> PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(p) = std::env::var_os(ENV_VAR).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            assert!(p.is_file(), "{ENV_VAR}={} is not a file", p.display());
            return p;
        }
        install_venv(&repo_root().join("target"))
    })
    .clone()
}

fn marker(venv: &Path) -> PathBuf {
    venv.join(format!(".colfile-moto-{MOTO_VERSION}"))
}

/// Installs moto into `target/moto-venv` unless a complete install is there; returns its
/// `moto_server`. Holds the lock directory while it looks and installs.
fn install_venv(target: &Path) -> PathBuf {
    let venv = target.join("moto-venv");
    let bin = venv.join("bin/moto_server");
    if marker(&venv).is_file() && bin.is_file() {
        return bin;
    }
    std::fs::create_dir_all(target).expect("create target/");
    let _lock = DirLock::acquire(target.join("moto-venv.lock"));
    if marker(&venv).is_file() && bin.is_file() {
        return bin; // another process installed it while we waited
    }
    if venv.exists() {
        std::fs::remove_dir_all(&venv)
            .unwrap_or_else(|e| panic!("removing incomplete {}: {e}", venv.display()));
    }
    let venv_s = venv.to_string_lossy().into_owned();
    run_or_panic(Command::new("python3").args(["-m", "venv", &venv_s]));
    let spec = format!("moto[server]=={MOTO_VERSION}");
    run_or_panic(Command::new(venv.join("bin/pip")).args([
        "install",
        "-q",
        "--disable-pip-version-check",
        &spec,
    ]));
    assert!(
        bin.is_file(),
        "pip installed moto but {} is missing",
        bin.display()
    );
    std::fs::write(marker(&venv), format!("moto[server]=={MOTO_VERSION}\n"))
        .expect("write the venv marker");
    bin
}

fn run_or_panic(cmd: &mut Command) {
    let shown = format!("{cmd:?}");
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("installing moto: cannot run {shown}: {e}"));
    if !out.status.success() {
        panic!(
            "installing moto: {shown} failed ({})\n--- stdout\n{}\n--- stderr\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A cross-process lock: a directory made atomically with `create_dir`, removed on drop.
/// One older than 15 minutes is taken as left by a killed process and removed.
struct DirLock(PathBuf);

impl DirLock {
    fn acquire(path: PathBuf) -> DirLock {
        let start = Instant::now();
        loop {
            match std::fs::create_dir(&path) {
                Ok(()) => return DirLock(path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&path)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| SystemTime::now().duration_since(t).ok());
                    if age.is_some_and(|a| a > Duration::from_secs(15 * 60)) {
                        let _ = std::fs::remove_dir(&path);
                        continue;
                    }
                    if start.elapsed() > Duration::from_secs(20 * 60) {
                        panic!("waited 20 minutes for the lock {}", path.display());
                    }
                    std::thread::sleep(Duration::from_millis(200));
                }
                Err(e) => panic!("creating the lock {}: {e}", path.display()),
            }
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

/// A running `moto_server` on 127.0.0.1; dropping it kills the process and waits for it.
pub struct MotoServer {
    child: Child,
    port: u16,
    log: PathBuf,
}

/// A response of the minimal client: status code, headers (names lower-cased), body.
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

impl MotoServer {
    /// Starts a fresh server on a free port and waits (up to 30 s) until it answers HTTP.
    pub fn start() -> MotoServer {
        let bin = moto_server_bin();
        let logs = repo_root().join("target/moto-logs");
        std::fs::create_dir_all(&logs).expect("create target/moto-logs");
        let port = free_port();
        let log = logs.join(format!("moto-{port}.log"));
        let out = std::fs::File::create(&log).expect("create the moto log");
        let err = out.try_clone().expect("clone the log handle");
        let child = Command::new(&bin)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {}: {e}", bin.display()));
        let mut server = MotoServer { child, port, log };
        server.wait_ready(Duration::from_secs(30));
        server
    }

    fn wait_ready(&mut self, limit: Duration) {
        let start = Instant::now();
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "moto_server exited ({status}) before answering\n{}",
                    self.log_tail()
                );
            }
            if let Ok(r) = self.request("GET", "/", &[], &[]) {
                if r.status > 0 {
                    return;
                }
            }
            if start.elapsed() > limit {
                panic!(
                    "moto_server on port {} did not answer in {limit:?}\n{}",
                    self.port,
                    self.log_tail()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(30)..].join("\n");
        format!("--- tail of {}\n{tail}", self.log.display())
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT`
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The variables `object_store`'s `AmazonS3Builder::from_env` reads to reach this server.
    pub fn env(&self) -> Vec<(String, String)> {
        [
            ("AWS_ENDPOINT_URL", self.endpoint().as_str()),
            ("AWS_ACCESS_KEY_ID", "test"),
            ("AWS_SECRET_ACCESS_KEY", "test"),
            ("AWS_REGION", "us-east-1"),
            ("AWS_ALLOW_HTTP", "true"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    pub fn create_bucket(&self, name: &str) {
        let r = self.must("PUT", &format!("/{}", encode(name)), &[], &[]);
        assert_eq!(r.status, 200, "create bucket {name}: {}", show(&r));
    }

    pub fn put_object(&self, bucket: &str, key: &str, bytes: &[u8]) {
        let r = self.must("PUT", &object_path(bucket, key), &[], bytes);
        assert_eq!(r.status, 200, "put {bucket}/{key}: {}", show(&r));
    }

    /// The object's bytes, or `None` if the key (or the bucket) does not exist.
    pub fn get_object(&self, bucket: &str, key: &str) -> Option<Vec<u8>> {
        let r = self.must("GET", &object_path(bucket, key), &[], &[]);
        match r.status {
            200 => Some(r.body),
            404 => None,
            _ => panic!("get {bucket}/{key}: {}", show(&r)),
        }
    }

    /// A GET with a `Range: bytes=FIRST-LAST` header (inclusive), answered as it comes.
    pub fn get_range(&self, bucket: &str, key: &str, first: u64, last: u64) -> Response {
        let range = format!("bytes={first}-{last}");
        self.must("GET", &object_path(bucket, key), &[("Range", &range)], &[])
    }

    /// Any request to this server (`path` already percent-encoded); panics on I/O errors.
    pub fn must(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Response {
        self.request(method, path, headers, body)
            .unwrap_or_else(|e| panic!("{method} {path} to {}: {e}", self.endpoint()))
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> std::io::Result<Response> {
        http(self.port, method, path, headers, body)
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    l.local_addr().expect("local addr").port()
}

fn show(r: &Response) -> String {
    format!("HTTP {}: {}", r.status, String::from_utf8_lossy(&r.body))
}

fn object_path(bucket: &str, key: &str) -> String {
    format!("/{}/{}", encode(bucket), encode(key))
}

/// Percent-encodes all but RFC 3986's unreserved characters and `/`.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One HTTP/1.1 request to 127.0.0.1:`port` with `Connection: close`; reads the whole
/// answer (Content-Length, chunked, or up to EOF).
fn http(
    port: u16,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<Response> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    s.set_read_timeout(Some(Duration::from_secs(30)))?;
    s.set_write_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Authorization: {AUTH}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if !body.is_empty() {
        head.push_str("Content-Type: application/octet-stream\r\n");
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    s.flush()?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    parse_response(&raw, method == "HEAD")
}

fn bad(msg: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, msg.to_string())
}

fn parse_response(raw: &[u8], no_body: bool) -> std::io::Result<Response> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of headers"))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| bad("non-UTF-8 headers"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .filter(|_| status_line.starts_with("HTTP/1."))
        .ok_or_else(|| bad(&format!("bad status line {status_line:?}")))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let find = |n: &str| {
        headers
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.as_str())
    };
    let body = if no_body || status == 204 || status == 304 {
        Vec::new()
    } else if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        dechunk(rest)?
    } else if let Some(n) = find("content-length") {
        let n: usize = n.parse().map_err(|_| bad("bad Content-Length"))?;
        if rest.len() < n {
            return Err(bad("body shorter than Content-Length"));
        }
        rest[..n].to_vec()
    } else {
        rest.to_vec()
    };
    Ok(Response {
        status,
        headers,
        body,
    })
}

fn dechunk(mut rest: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = rest
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| bad("unterminated chunk size"))?;
        let size_text = std::str::from_utf8(&rest[..eol]).map_err(|_| bad("bad chunk size"))?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| bad("bad chunk size"))?;
        rest = &rest[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if rest.len() < size + 2 {
            return Err(bad("truncated chunk"));
        }
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size + 2..];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_length_and_chunked_bodies() {
        let r = parse_response(
            b"HTTP/1.1 206 PARTIAL CONTENT\r\nContent-Length: 3\r\n\r\nabc",
            false,
        )
        .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (206, &b"abc"[..]));
        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x\r\nde\r\n0\r\n\r\n";
        let r = parse_response(raw, false).unwrap();
        assert_eq!(r.body, b"abcde");
        assert_eq!(r.header("Transfer-Encoding"), Some("chunked"));
        assert_eq!(encode("dir/a=1/part 0"), "dir/a%3D1/part%200");
    }
}
