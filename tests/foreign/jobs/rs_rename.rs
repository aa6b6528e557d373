//! At-most-once daily export in Rust (standard library only): the new state goes to
//! sent.json.tmp (File::create, write_all, sync_all), is renamed over sent.json, the folder is
//! synced (File::open(dir).sync_all()), then the report is POSTed over a TcpStream.
//!
//!   kp-foreign-rs-rename correct   as above
//!   kp-foreign-rs-rename buggy     no sync of the folder: the rename may be lost in a power cut
//!                                  after the POST, and the retry POSTs the date again
//!
//! Rust's std calls libc's open, write, fsync and rename: the syscall shim sees them all.
use std::fs::{self, File};
use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::exit;

fn fail(code: i32, msg: String) -> ! {
    eprintln!("export: {}", msg);
    exit(code)
}

fn save(dir: &Path, text: &str, sync_dir: bool) -> std::io::Result<()> {
    let tmp = dir.join("sent.json.tmp");
    let mut f = File::create(&tmp)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, dir.join("sent.json"))?;
    if sync_dir {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

fn publish(day: &str) -> std::io::Result<String> {
    let url = std::env::var("KILLPOINT_DOWNSTREAM").unwrap_or_default();
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let body = format!(
        "{{\"key\":\"{d}\",\"biz_date\":\"{d}\",\"payload\":{{\"report\":\"daily\"}}}}",
        d = day
    );
    let mut s = TcpStream::connect(host)?;
    write!(
        s,
        "POST /publish HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{}",
        host,
        body.len(),
        body
    )?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    Ok(answer)
}

fn main() {
    let form = std::env::args().nth(1).unwrap_or_default();
    if form != "correct" && form != "buggy" {
        fail(2, "usage: kp-foreign-rs-rename correct|buggy".into());
    }
    let day = std::env::var("KILLPOINT_BIZ_DATE").unwrap_or_default();
    let workdir = std::env::var("KILLPOINT_WORKDIR").unwrap_or_default();
    let dir = Path::new(&workdir);
    let old = match fs::read_to_string(dir.join("sent.json")) {
        Ok(text) => text.trim().to_string(),
        Err(e) if e.kind() == ErrorKind::NotFound => String::new(),
        Err(e) => fail(1, format!("read sent.json: {}", e)),
    };
    let next = if old.is_empty() {
        format!("{{\"sent\":[\"{}\"]}}\n", day)
    } else if old.starts_with("{\"sent\":[") && old.ends_with("]}") {
        if old.contains(&format!("\"{}\"", day)) {
            println!("{} was already sent", day);
            return;
        }
        let head = &old[..old.len() - 2];
        let sep = if head.ends_with('[') { "" } else { "," };
        format!("{}{}\"{}\"]}}\n", head, sep, day)
    } else {
        fail(
            3,
            format!(
                "sent.json is corrupt ({} bytes), refusing to guess",
                old.len()
            ),
        );
    };
    if let Err(e) = save(dir, &next, form == "correct") {
        fail(1, format!("save: {}", e));
    }
    match publish(&day) {
        Ok(a) if a.starts_with("HTTP/1.1 200") || a.starts_with("HTTP/1.0 200") => {
            println!("published {}", day)
        }
        Ok(a) => fail(
            1,
            format!("publish answered {:?}", a.lines().next().unwrap_or("")),
        ),
        Err(e) => fail(1, format!("publish: {}", e)),
    }
}
