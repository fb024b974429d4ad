//! One run of a tournament at a time: a run takes the tournament's lease in
//! the store before its first game and gives it up when it ends. A second
//! run is refused with the holder's name; a lease whose holder is gone (its
//! process dead on this host, or silent for [`STALE_AFTER_SECS`] elsewhere)
//! is taken over.

use crate::store::{Lease, Store};

/// A lease not renewed for this long, held on another host, is stale.
pub const STALE_AFTER_SECS: i64 = 60;

/// How often a running tournament renews its lease.
pub const RENEW_EVERY_SECS: u64 = 10;

/// The lease of the running tournament, given up when dropped.
pub struct RunLease<'a> {
    store: &'a Store,
    id: i64,
    holder: String,
}

/// How the run before this one ended, as its lease tells.
#[derive(Debug, PartialEq, Eq)]
pub enum PreviousRun {
    /// It ended cleanly, or there was none.
    Clean,
    /// It died while holding the lease (killed, or a plugin took the whole
    /// process down); `in_process` if it played games on its own threads.
    Died {
        /// Whether it played games in its own process.
        in_process: bool,
    },
}

impl<'a> RunLease<'a> {
    /// Takes the lease on tournament `id`, or says who holds it.
    pub fn take(store: &'a Store, id: i64, in_process: bool) -> anyhow::Result<(RunLease<'a>, PreviousRun)> {
        let pid = std::process::id() as i64;
        let holder = format!("{}:{pid}", host_name());
        let lease = Lease { holder: holder.clone(), pid, heartbeat: unix_now(), in_process };
        match store.take_lease(id, &lease, is_stale)? {
            Ok(previous) => {
                let previous = match previous {
                    Some(old) => PreviousRun::Died { in_process: old.in_process },
                    None => PreviousRun::Clean,
                };
                Ok((RunLease { store, id, holder }, previous))
            }
            Err(held) => anyhow::bail!(
                "tournament {id} is being run by {} (process {}, alive {} s ago): wait for it to finish or stop it",
                held.holder,
                held.pid,
                unix_now() - held.heartbeat
            ),
        }
    }

    /// Says the run is alive.
    pub fn renew(&self) {
        if let Err(e) = self.store.renew_lease(self.id, &self.holder, unix_now()) {
            tracing::warn!("renewing the lease of tournament {}: {e}", self.id);
        }
    }
}

impl Drop for RunLease<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.store.release_lease(self.id, &self.holder) {
            tracing::warn!("giving up the lease of tournament {}: {e}", self.id);
        }
    }
}

/// Whether a lease's holder is gone: on this host, its process is dead (or
/// is no longer arbiter); elsewhere, it has been silent too long.
fn is_stale(lease: &Lease) -> bool {
    let (host, _) = lease.holder.rsplit_once(':').unwrap_or((&lease.holder, ""));
    if host == host_name() {
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", lease.pid)).unwrap_or_default();
        return !String::from_utf8_lossy(&cmdline).contains("arbiter");
    }
    unix_now() - lease.heartbeat > STALE_AFTER_SECS
}

/// This machine's name.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "localhost".into())
}

fn unix_now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
}
