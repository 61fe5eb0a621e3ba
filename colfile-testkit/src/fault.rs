//! A fault-injecting HTTP proxy for tests: [`FaultProxy`] sits between an object-store
//! client and a real server (moto), forwards each HTTP/1.1 request and, as its
//! [`FaultPlan`] says, answers an error status, drops the connection mid-body, sends a
//! short body, corrupts the bytes, or passes the answer on untouched.
//!
//! * Plain `std::net`, one thread per connection, one request per connection: the request
//!   head and its `Content-Length` body are read, sent upstream with `Connection: close`,
//!   the whole upstream answer is read, then sent back (perhaps altered) with
//!   `Connection: close` and the client connection is closed. So no connection is ever
//!   reused and each request is seen whole.
//! * The plan counts GETs that carry a `Range` header (the reads of an object) apart from
//!   every other request (HEAD, PUT, plain GET), so "the 2nd range GET" means the same thing
//!   whatever came before it. The counts start at 1.
//! * [`FaultProxy::requests`] tells how many requests passed and how many faults were
//!   injected, so a test can prove its retries really happened.
//! * Dropping the proxy stops its accept loop (a flag, then a connection to itself to wake
//!   `accept`); connections being served finish on their own threads.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

/// What the proxy does to one answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Forward the upstream answer untouched.
    Pass,
    /// Answer this status (503, 500, ...) with a small S3-style XML error body; upstream
    /// is not asked.
    Status(u16),
    /// Send the upstream status line, headers and half of the body, then close: a
    /// connection dropped mid-body (the client sees fewer bytes than `Content-Length`).
    DropMidBody,
    /// Send the headers with the true `Content-Length` but only the first quarter of the
    /// body, then close (a short body; framing says more was coming).
    ShortBody,
    /// Send half of the body with `Content-Length` rewritten to say that is all (headers
    /// such as `Content-Range` left as they were): the HTTP framing is consistent, so only
    /// a caller that checks the length it asked for can tell.
    Truncate,
    /// Rewrite every body byte (XOR 0x5A), same length: wrong data that only a checksum or
    /// a parser can detect.
    Corrupt,
}

/// Which fault each request gets.
#[derive(Clone, Debug, Default)]
pub struct FaultPlan {
    /// (n, fault): the n-th range GET (from 1) gets `fault`.
    nth_range: Vec<(u64, Fault)>,
    /// The fault for range GETs not named in `nth_range` (`None`: pass).
    every_range: Option<Fault>,
}

impl FaultPlan {
    /// Every request passes.
    pub fn pass() -> FaultPlan {
        FaultPlan::default()
    }

    /// The n-th range GET (counted from 1) gets its fault; all others pass.
    pub fn nth_range_gets(faults: Vec<(u64, Fault)>) -> FaultPlan {
        FaultPlan {
            nth_range: faults,
            every_range: None,
        }
    }

    /// Every range GET gets `fault`.
    pub fn every_range_get(fault: Fault) -> FaultPlan {
        FaultPlan {
            nth_range: Vec::new(),
            every_range: Some(fault),
        }
    }

    /// The fault for the `n`-th range GET (from 1).
    fn range_get(&self, n: u64) -> Fault {
        self.nth_range
            .iter()
            .find(|(i, _)| *i == n)
            .map(|(_, f)| f.clone())
            .or_else(|| self.every_range.clone())
            .unwrap_or(Fault::Pass)
    }
}

/// What the proxy has seen so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Requests {
    /// Every request read from a client.
    pub total: u64,
    /// GETs with a `Range` header among them.
    pub range_gets: u64,
    /// Answers that were not passed on untouched.
    pub faults: u64,
}

#[derive(Default)]
struct Counters {
    total: AtomicU64,
    range_gets: AtomicU64,
    faults: AtomicU64,
}

/// A running proxy on 127.0.0.1; dropping it stops the listener.
pub struct FaultProxy {
    addr: SocketAddr,
    plan: Arc<RwLock<FaultPlan>>,
    stop: Arc<AtomicBool>,
    counters: Arc<Counters>,
    thread: Option<JoinHandle<()>>,
}

impl FaultProxy {
    /// Listens on a free port of 127.0.0.1 and forwards to `upstream`
    /// (`http://127.0.0.1:PORT`) with `plan`'s faults.
    pub fn start(upstream: &str, plan: FaultPlan) -> FaultProxy {
        let upstream = upstream
            .strip_prefix("http://")
            .unwrap_or(upstream)
            .trim_end_matches('/')
            .to_string();
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fault proxy");
        let addr = listener.local_addr().expect("proxy address");
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(Counters::default());
        let plan = Arc::new(RwLock::new(plan));
        let thread = {
            let stop = Arc::clone(&stop);
            let counters = Arc::clone(&counters);
            let plan = Arc::clone(&plan);
            std::thread::spawn(move || {
                for conn in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let upstream = upstream.clone();
                    let counters = Arc::clone(&counters);
                    let plan = Arc::clone(&plan);
                    std::thread::spawn(move || {
                        // A client that hangs up early is no failure of the proxy.
                        let _ = serve(conn, &upstream, &plan, &counters);
                    });
                }
            })
        };
        FaultProxy {
            addr,
            plan,
            stop,
            counters,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`, for a client's endpoint.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Replaces the plan for the requests from now on (range GETs are still counted from
    /// the first): how a test lets a table be made, then fails its scans.
    pub fn set_plan(&self, plan: FaultPlan) {
        *self.plan.write().unwrap_or_else(|e| e.into_inner()) = plan;
    }

    /// The counts so far.
    pub fn requests(&self) -> Requests {
        Requests {
            total: self.counters.total.load(Ordering::SeqCst),
            range_gets: self.counters.range_gets.load(Ordering::SeqCst),
            faults: self.counters.faults.load(Ordering::SeqCst),
        }
    }
}

impl Drop for FaultProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept so the loop sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A parsed HTTP message: the head's lines (start line first) and the body.
struct Message {
    lines: Vec<String>,
    body: Vec<u8>,
}

impl Message {
    fn header(&self, name: &str) -> Option<&str> {
        self.lines.iter().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    /// The head with `Connection: close` (any `Connection` and, if `len` is given,
    /// `Content-Length` header replaced), ending in the blank line.
    fn head(&self, len: Option<usize>) -> Vec<u8> {
        let mut out = String::new();
        for (i, l) in self.lines.iter().enumerate() {
            let name = l
                .split_once(':')
                .map(|(k, _)| k.trim().to_ascii_lowercase());
            let drop = i > 0
                && (name.as_deref() == Some("connection")
                    || (len.is_some() && name.as_deref() == Some("content-length")));
            if !drop {
                out.push_str(l);
                out.push_str("\r\n");
            }
        }
        if let Some(n) = len {
            out.push_str(&format!("Content-Length: {n}\r\n"));
        }
        out.push_str("Connection: close\r\n\r\n");
        out.into_bytes()
    }
}

/// Reads up to the blank line after the head; returns the head's lines and the bytes read
/// past it.
fn read_head(s: &mut TcpStream) -> std::io::Result<(Vec<String>, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..p]).into_owned();
            let rest = buf[p + 4..].to_vec();
            let lines = head.split("\r\n").map(str::to_string).collect();
            return Ok((lines, rest));
        }
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "connection closed before the end of the head",
            ));
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads a request: its head and `Content-Length` bytes of body.
fn read_request(s: &mut TcpStream) -> std::io::Result<Message> {
    let (lines, mut body) = read_head(s)?;
    let mut msg = Message {
        lines,
        body: Vec::new(),
    };
    let len: usize = msg
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while body.len() < len {
        let mut chunk = vec![0u8; (len - body.len()).min(64 << 10)];
        let n = s.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(len);
    msg.body = body;
    Ok(msg)
}

/// Sends `req` upstream with `Connection: close` and reads the whole answer (to EOF; a
/// chunked answer is not decoded, so only answers with `Content-Length` can be altered).
fn forward(upstream: &str, req: &Message) -> std::io::Result<Message> {
    let mut up = TcpStream::connect(upstream)?;
    up.set_read_timeout(Some(Duration::from_secs(30)))?;
    up.write_all(&req.head(None))?;
    up.write_all(&req.body)?;
    up.flush()?;
    let (lines, mut body) = read_head(&mut up)?;
    up.read_to_end(&mut body)?;
    Ok(Message { lines, body })
}

fn status_answer(code: u16) -> Vec<u8> {
    let (reason, s3_code) = match code {
        503 => ("Service Unavailable", "SlowDown"),
        500 => ("Internal Server Error", "InternalError"),
        _ => ("Error", "InternalError"),
    };
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>{s3_code}</Code>\
         <Message>injected by FaultProxy</Message></Error>"
    );
    format!(
        "HTTP/1.1 {code} {reason}\r\nContent-Type: application/xml\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn serve(
    mut client: TcpStream,
    upstream: &str,
    plan: &RwLock<FaultPlan>,
    counters: &Counters,
) -> std::io::Result<()> {
    client.set_read_timeout(Some(Duration::from_secs(30)))?;
    let req = read_request(&mut client)?;
    counters.total.fetch_add(1, Ordering::SeqCst);
    let is_range_get = req.lines[0].starts_with("GET ") && req.header("range").is_some();
    let fault = if is_range_get {
        let n = counters.range_gets.fetch_add(1, Ordering::SeqCst) + 1;
        plan.read().unwrap_or_else(|e| e.into_inner()).range_get(n)
    } else {
        Fault::Pass
    };
    if fault != Fault::Pass {
        counters.faults.fetch_add(1, Ordering::SeqCst);
    }
    if let Fault::Status(code) = fault {
        client.write_all(&status_answer(code))?;
        client.flush()?;
        return client.shutdown(Shutdown::Both);
    }
    let mut resp = forward(upstream, &req)?;
    let body_len = resp.body.len();
    match fault {
        Fault::Pass | Fault::Status(_) => {
            client.write_all(&resp.head(None))?;
            client.write_all(&resp.body)?;
        }
        Fault::DropMidBody => {
            client.write_all(&resp.head(None))?;
            client.write_all(&resp.body[..body_len / 2])?;
        }
        Fault::ShortBody => {
            client.write_all(&resp.head(None))?;
            client.write_all(&resp.body[..body_len / 4])?;
        }
        Fault::Truncate => {
            client.write_all(&resp.head(Some(body_len / 2)))?;
            client.write_all(&resp.body[..body_len / 2])?;
        }
        Fault::Corrupt => {
            resp.body.iter_mut().for_each(|b| *b ^= 0x5A);
            client.write_all(&resp.head(None))?;
            client.write_all(&resp.body)?;
        }
    }
    client.flush()?;
    client.shutdown(Shutdown::Both)
}
