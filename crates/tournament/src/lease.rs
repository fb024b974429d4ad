//! One run of a tournament at a time: a run takes the tournament's lease in
//! the store before its first game and gives it up when it ends. A second
//! run is refused with the holder's name; a lease whose holder is gone (its
//! process dead on this host, or silent for [`STALE_AFTER_SECS`] elsewhere)
//! is taken over.

use super::error::{Result, TournamentError};
use arbiter_store::{Lease, Store};

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
    pub fn take(store: &'a Store, id: i64, in_process: bool) -> Result<(RunLease<'a>, PreviousRun)> {
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
            Err(held) => Err(TournamentError::Refused(format!(
                "tournament {id} is being run by {} (process {}, alive {} s ago): wait for it to finish or stop it",
                held.holder,
                held.pid,
                unix_now() - held.heartbeat
            ))),
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

#[cfg(test)]
mod tests {
    use super::{host_name, is_stale, unix_now, PreviousRun, RunLease, STALE_AFTER_SECS};
    use arbiter_store::Lease;

    #[test]
    fn a_second_run_is_refused_with_the_holder_and_a_dropped_lease_is_given_up() {
        let store = arbiter_testing::temp_store();
        let t = store.add_tournament("t", "{}").unwrap();
        let (first, previous) = RunLease::take(&store, t, false).unwrap();
        assert_eq!(previous, PreviousRun::Clean);
        // This test's own process holds it, and it is alive (its command
        // line names the test binary, built by arbiter's crate).
        let e = RunLease::take(&store, t, false).err().unwrap().to_string();
        assert!(e.starts_with(&format!("tournament {t} is being run by {}:", host_name())), "{e}");
        assert!(e.ends_with("wait for it to finish or stop it"), "{e}");
        first.renew();
        drop(first);
        let (_again, previous) = RunLease::take(&store, t, true).unwrap();
        assert_eq!(previous, PreviousRun::Clean);
    }

    #[test]
    fn a_holder_is_gone_when_its_process_is_dead_here_or_it_is_silent_elsewhere() {
        let here =
            |pid| Lease { holder: format!("{}:{pid}", host_name()), pid, heartbeat: unix_now(), in_process: true };
        assert!(!is_stale(&here(std::process::id() as i64)), "this process is alive");
        assert!(is_stale(&here(i32::MAX as i64)), "no such process");
        let elsewhere =
            |age| Lease { holder: "far-away-host:1".into(), pid: 1, heartbeat: unix_now() - age, in_process: false };
        assert!(!is_stale(&elsewhere(1)));
        assert!(is_stale(&elsewhere(STALE_AFTER_SECS + 5)));
        // A dead holder's lease is taken over and says how that run ended.
        let store = arbiter_testing::temp_store();
        let t = store.add_tournament("t", "{}").unwrap();
        store.take_lease(t, &here(i32::MAX as i64), |_| false).unwrap().unwrap();
        let (_lease, previous) = RunLease::take(&store, t, false).unwrap();
        assert_eq!(previous, PreviousRun::Died { in_process: true });
    }
}
