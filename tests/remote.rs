//! Remote workers end to end: `arbiter serve` over HTTPS (a certificate
//! made by openssl) coordinates `arbiter worker --server` processes that
//! hold only a token. The games they upload are verified and equal a
//! one-process run's, names included; the coordinator killed and started
//! again mid-run loses and doubles nothing; a wrong certificate, token or
//! revoked token is one line.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use arbiter_e2e::{arbiter, arbiter_bin, stored_games, temp_dir};

/// `arbiter serve --tls-cert ... --tls-key ...` on `bind`: the child and
/// its https address.
fn coordinator(db: &Path, dir: &Path, bind: &str) -> (Child, String) {
    let mut child = Command::new(arbiter_bin())
        .env_remove("ARBITER_PLUGIN_PATH")
        .args(["serve", "--db", db.to_str().unwrap(), "--bind", bind, "--worker-lease", "5"])
        .arg("--tls-cert")
        .arg(dir.join("cert.pem"))
        .arg("--tls-key")
        .arg(dir.join("key.pem"))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start arbiter serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("https://")).unwrap_or_else(|| panic!("{line}"));
    (child, url.trim_end_matches('/').to_string())
}

/// A certificate authority of the test's own (`ca.pem`) and a server
/// certificate for 127.0.0.1 it signed (`cert.pem`, `key.pem`), in `dir`.
fn certificate(dir: &Path) {
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    let ext = dir.join("server.ext");
    std::fs::write(&ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n").unwrap();
    let steps: [Vec<&str>; 3] = [
        [
            &["req", "-x509", "-days", "2", "-subj", "/CN=arbiter test CA", "-keyout", "ca.key", "-out", "ca.pem"][..],
            &ec[..],
        ]
        .concat(),
        [&["req", "-subj", "/CN=localhost", "-keyout", "key.pem", "-out", "server.csr"][..], &ec[..]].concat(),
        vec![
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "cert.pem",
        ],
    ];
    for step in steps {
        let made = Command::new("openssl").args(&step).current_dir(dir).output().expect("openssl");
        assert!(made.status.success(), "openssl {step:?}: {}", String::from_utf8_lossy(&made.stderr));
    }
}

fn worker(url: &str, token: &str, ca: Option<&Path>) -> Command {
    let mut cmd = Command::new(arbiter_bin());
    cmd.args(["worker", "--server", url, "--token", token, "--tournament", "1", "--idle-exit", "60"]);
    if let Some(ca) = ca {
        cmd.arg("--ca-cert").arg(ca);
    }
    cmd
}

#[test]
fn remote_workers_over_https_store_what_one_process_plays_through_a_coordinator_restart() {
    let field = [
        "tournament",
        "--player",
        "a=mcts:iterations=20",
        "--player",
        "b=random:seed=3",
        "--player",
        "c=mcts:iterations=5",
        "--variant",
        "checkers",
        "--max-plies",
        "60",
        "--seed",
        "4",
        "--rounds",
        "3",
    ];
    let dir = temp_dir("remote-workers");
    certificate(&dir);
    let (one, coord) = (dir.join("one.db"), dir.join("coord.db"));
    let run = arbiter(&[&field[..], &["--db", one.to_str().unwrap()]].concat());
    assert!(run.ok, "{}", run.stderr);
    let run = arbiter(&[&field[..], &["--db", coord.to_str().unwrap(), "--local-workers", "0"]].concat());
    assert!(run.ok, "{}", run.stderr);
    let issued = arbiter(&["tokens", "--db", coord.to_str().unwrap(), "issue", "lab-1"]);
    assert!(issued.ok, "{}", issued.stderr);
    let token = issued.stdout.trim().to_string();

    let (mut server, url) = coordinator(&coord, &dir, "127.0.0.1:0");
    // A certificate the worker was not told to trust is one line.
    let untrusted = worker(&url, &token, None).output().unwrap();
    let stderr = String::from_utf8_lossy(&untrusted.stderr);
    assert!(!untrusted.status.success() && stderr.contains("certificate"), "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    // A token the coordinator never issued.
    let forged = worker(&url, "arbw_0000", Some(&dir.join("ca.pem"))).output().unwrap();
    let stderr = String::from_utf8_lossy(&forged.stderr);
    assert!(!forged.status.success() && stderr.contains("unknown worker token"), "{stderr}");

    // Clients that connect and say nothing hold no worker back.
    let idle: Vec<std::net::TcpStream> =
        (0..50).map(|_| std::net::TcpStream::connect(url.trim_start_matches("https://")).unwrap()).collect();
    let mut workers: Vec<Child> = (0..2)
        .map(|_| {
            worker(&url, &token, Some(&dir.join("ca.pem")))
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // The coordinator is killed once a game is stored, and started again
    // on its port: the workers wait for it and go on.
    let t0 = Instant::now();
    while stored_count(&coord) == 0 && t0.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill().unwrap();
    server.wait().unwrap();
    drop(idle);
    std::thread::sleep(Duration::from_millis(700));
    let bind = url.trim_start_matches("https://").to_string();
    let (mut server, _) = coordinator(&coord, &dir, &bind);
    let mut waited = 0;
    for w in &mut workers {
        let status = w.wait().unwrap();
        let mut stderr = String::new();
        std::io::Read::read_to_string(w.stderr.as_mut().unwrap(), &mut stderr).unwrap();
        assert!(status.success(), "{stderr}");
        waited += stderr.matches("did not answer").count();
    }
    assert!(waited > 0, "the workers met the coordinator down");
    let played = stored_games(&coord);
    assert_eq!(played.len(), 18, "every game once");
    assert_eq!(played, stored_games(&one), "the games one process plays, names included");
    let workers_named: Vec<String> = arbiter::store::Store::open(&coord)
        .unwrap()
        .games(None)
        .unwrap()
        .into_iter()
        .filter_map(|g| g.worker)
        .collect();
    assert!(workers_named.len() == 18 && workers_named.iter().all(|w| w.starts_with("lab-1:")), "{workers_named:?}");

    // Revoked, the worker's next request is refused.
    let revoked = arbiter(&["tokens", "--db", coord.to_str().unwrap(), "revoke", "lab-1"]);
    assert!(revoked.ok, "{}", revoked.stderr);
    let refused = worker(&url, &token, Some(&dir.join("ca.pem"))).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && stderr.contains("the token of worker 'lab-1' is revoked"), "{stderr}");
    let list = arbiter(&["tokens", "--db", coord.to_str().unwrap(), "list"]);
    assert!(list.ok && list.stdout.contains("lab-1") && list.stdout.contains("revoked"), "{}", list.stdout);
    server.kill().unwrap();
    server.wait().unwrap();
}

fn stored_count(db: &Path) -> usize {
    arbiter::store::Store::open(db).map(|s| s.games(None).map(|g| g.len()).unwrap_or(0)).unwrap_or(0)
}

/// A connection to `port` on loopback from `source` (127.0.0.x).
fn connect_from(source: &str, port: u16) -> std::net::TcpStream {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let from: std::net::SocketAddr = format!("{source}:0").parse().unwrap();
    socket.bind(&from.into()).unwrap();
    let to: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    socket.connect(&to.into()).unwrap();
    socket.into()
}

/// Whether the server closed `stream` (an end of file, or a reset).
fn closed(stream: &mut std::net::TcpStream) -> bool {
    use std::io::Read;
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false
            }
            Err(_) => return true,
        }
    }
}

/// The peak and present resident memory of process `pid`, in MB.
fn memory_mb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb = |key: &str| -> u64 {
        let line = status.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    (kb("VmHWM:") / 1024, kb("VmRSS:") / 1024)
}

/// 1,000 hostile connections (silent, headers dripped a byte a second, an
/// upload of 32 MiB announced without a token, a request then idle) from
/// four addresses: an honest worker still claims at once, the coordinator
/// stays small, the upload without a token is refused before its body, and
/// every other hostile connection is closed within seconds; past 256
/// connections from one address, more are closed at once.
#[test]
fn hostile_connections_cost_little_are_closed_in_seconds_and_lock_no_worker_out() {
    use std::io::Write;
    let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: reads and writes `limit` only.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
    assert!(limit.rlim_cur >= 2000, "this test needs 2,000 open files (ulimit -n)");
    let dir = temp_dir("hostile");
    let db = dir.join("c.db");
    let db_text = db.to_str().unwrap();
    let queued = arbiter(&[
        "tournament",
        "--player",
        "a=random:seed=1",
        "--player",
        "b=random:seed=2",
        "--variant",
        "checkers",
        "--max-plies",
        "20",
        "--rounds",
        "4",
        "--db",
        db_text,
        "--local-workers",
        "0",
    ]);
    assert!(queued.ok, "{}", queued.stderr);
    let issued = arbiter(&["tokens", "--db", db_text, "issue", "honest"]);
    let token = issued.stdout.trim().to_string();
    let mut server = Command::new(arbiter_bin())
        .env_remove("ARBITER_PLUGIN_PATH")
        .args(["serve", "--db", db_text, "--bind", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).unwrap().trim_end_matches('/').to_string();
    let port: u16 = url.rsplit(':').next().unwrap().parse().unwrap();
    let (_, before) = memory_mb(server.id());

    let sources = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"];
    let mut hostile: Vec<(usize, std::net::TcpStream)> = (0..1000)
        .map(|i| {
            let mut s = connect_from(sources[i % 4], port);
            let kind = (i / 4) % 4;
            let said: &[u8] = match kind {
                0 => b"",
                1 => b"POST /api/worker/claim HTTP/1.1\r\nHo",
                2 => b"POST /api/worker/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 33554432\r\n\r\n{\"holder\": \"",
                _ => b"GET /api/worker/pins HTTP/1.1\r\nHost: x\r\n\r\n",
            };
            s.write_all(said).unwrap();
            (kind, s)
        })
        .collect();
    // An upload announced without a token is answered 401 at once.
    for (_, s) in hostile.iter_mut().filter(|(k, _)| *k == 2).take(20) {
        use std::io::Read;
        s.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let mut head = [0u8; 12];
        s.read_exact(&mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 401");
    }
    // An honest worker claims while they are open.
    let claim = serde_json::json!({"slot": "h:1#0", "most": 1}).to_string();
    let started = Instant::now();
    let answer = ureq::post(&format!("{url}/api/worker/claim"))
        .header("Authorization", &format!("Bearer {token}"))
        .header("Content-Type", "application/json")
        .send(&claim)
        .unwrap();
    let latency = started.elapsed();
    assert_eq!(answer.status(), 200);
    assert!(latency < Duration::from_secs(2), "a claim took {latency:?} among 1,000 hostile connections");
    // One address past its cap: the connections past 256 are closed at once.
    let mut crowd: Vec<std::net::TcpStream> = (0..300).map(|_| connect_from("127.0.0.9", port)).collect();
    std::thread::sleep(Duration::from_millis(300));
    let shut = crowd.iter_mut().map(closed).filter(|&c| c).count();
    assert!(shut >= 44, "{shut} of 300 connections from one address closed");
    drop(crowd);
    let (peak, _) = memory_mb(server.id());
    eprintln!("coordinator: {before} MB before, peak {peak} MB with 1,000 hostile connections; claim in {latency:?}");
    assert!(peak < 200, "the coordinator grew to {peak} MB with 1,000 hostile connections");
    // Dripping a byte a second, for 12 s: every hostile connection is closed.
    for _ in 0..12 {
        std::thread::sleep(Duration::from_secs(1));
        for (_, s) in hostile.iter_mut().filter(|(k, _)| *k == 1) {
            let _ = s.write_all(b"x");
        }
    }
    let open: Vec<usize> = hostile.iter_mut().filter_map(|(k, s)| (!closed(s)).then_some(*k)).collect();
    assert!(
        open.is_empty(),
        "{} hostile connections still open after 12 s (kinds {:?})",
        open.len(),
        &open[..open.len().min(8)]
    );
    server.kill().unwrap();
    server.wait().unwrap();
}
