//! The moto S3 server of `colfile_testkit::s3` is real: objects round-trip byte for byte
//! (keys with slashes and `=` too), missing keys are 404, Range GETs are 206, and dropping
//! the server ends its process.

use colfile_testkit::s3::MotoServer;
use std::net::TcpStream;
use std::time::{Duration, Instant};

#[test]
fn objects_round_trip_and_the_server_stops_on_drop() {
    let t = Instant::now();
    let server = MotoServer::start();
    eprintln!("moto_server answered after {:?}", t.elapsed());
    let port = server.port();
    assert_eq!(server.endpoint(), format!("http://127.0.0.1:{port}"));
    assert!(server
        .env()
        .contains(&("AWS_ENDPOINT_URL".to_string(), server.endpoint())));

    server.create_bucket("colfile-test");
    let big: Vec<u8> = (0..1_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    server.put_object("colfile-test", "big.bin", &big);
    server.put_object("colfile-test", "dir/a=1/part-0", b"partition zero");

    let got = server
        .get_object("colfile-test", "big.bin")
        .expect("big.bin");
    assert_eq!(got.len(), big.len());
    assert!(got == big, "big.bin came back different");
    assert_eq!(
        server
            .get_object("colfile-test", "dir/a=1/part-0")
            .as_deref(),
        Some(&b"partition zero"[..])
    );
    assert_eq!(server.get_object("colfile-test", "dir/a=1/part-1"), None);
    assert_eq!(server.get_object("no-such-bucket", "x"), None);

    let r = server.get_range("colfile-test", "big.bin", 10, 19);
    assert_eq!(r.status, 206, "Range GET: {:?}", r.headers);
    assert_eq!(r.body, &big[10..20]);
    assert_eq!(r.header("content-range"), Some("bytes 10-19/1000000"));

    drop(server);
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_err(),
        "port {port} still accepts connections after the server was dropped"
    );
}

#[test]
fn servers_are_independent() {
    let (a, b) = (MotoServer::start(), MotoServer::start());
    assert_ne!(a.port(), b.port());
    a.create_bucket("only-in-a");
    a.put_object("only-in-a", "k", b"v");
    assert_eq!(a.get_object("only-in-a", "k").as_deref(), Some(&b"v"[..]));
    assert_eq!(b.get_object("only-in-a", "k"), None);
}
