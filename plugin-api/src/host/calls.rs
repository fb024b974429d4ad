//! Which plugin call a thread is in, for a watchdog on another thread to
//! name the call that never returned (natively, a hung call cannot be
//! interrupted; a `.wasm` plugin's is, and its error names the call, so the
//! two report a hang in the same words). A thread that is not watched pays
//! one thread-local read a call.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The calls a watchdog can name, by their ABI names.
const NAMES: [&str; 12] = [
    "status",
    "legal_moves",
    "apply",
    "copy_from",
    "perft",
    "move_to_text",
    "parse_move",
    "position_text",
    "observe",
    "sample_world",
    "evaluate",
    "call_json",
];

/// One of [`NAMES`], by index.
#[derive(Clone, Copy)]
pub(crate) struct Call(pub(crate) usize);

/// The calls a host makes, by name.
pub(crate) mod call {
    use super::Call;
    pub(crate) const STATUS: Call = Call(0);
    pub(crate) const LEGAL_MOVES: Call = Call(1);
    pub(crate) const APPLY: Call = Call(2);
    pub(crate) const COPY_FROM: Call = Call(3);
    pub(crate) const PERFT: Call = Call(4);
    pub(crate) const MOVE_TO_TEXT: Call = Call(5);
    pub(crate) const PARSE_MOVE: Call = Call(6);
    pub(crate) const POSITION_TEXT: Call = Call(7);
    pub(crate) const OBSERVE: Call = Call(8);
    pub(crate) const SAMPLE_WORLD: Call = Call(9);
    pub(crate) const EVALUATE: Call = Call(10);
    pub(crate) const CALL_JSON: Call = Call(11);
}

/// A watched thread's state: the call it is in (index + 1; 0 for none) and
/// how many calls it has entered.
#[derive(Default)]
struct Slot {
    call: AtomicUsize,
    entered: AtomicU64,
}

thread_local! {
    static WATCHED: Cell<Option<&'static Slot>> = const { Cell::new(None) };
}

/// A handle on one thread's plugin calls, readable from any thread.
#[derive(Clone)]
pub struct CallWatch(Arc<Slot>);

/// What a watched thread is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The call it is in, by its ABI name; `None` between calls.
    pub call: Option<&'static str>,
    /// How many calls it has entered: the same count, read twice, means
    /// the same call.
    pub entered: u64,
}

impl CallWatch {
    /// Watches the calling thread from now on (the slot lives as long as
    /// the process: a watched thread is a long-lived game or check thread).
    pub fn this_thread() -> CallWatch {
        let watch = Arc::new(Slot::default());
        // SAFETY: `into_raw` leaks one count of the Arc, which is never
        // given back, so the slot lives for the rest of the process and the
        // reference made from the pointer stays valid.
        let slot: &'static Slot = unsafe { &*Arc::into_raw(watch.clone()) };
        WATCHED.with(|w| w.set(Some(slot)));
        CallWatch(watch)
    }

    /// What the watched thread is doing now.
    pub fn now(&self) -> InFlight {
        let call = self.0.call.load(Ordering::Relaxed);
        InFlight { call: call.checked_sub(1).map(|i| NAMES[i]), entered: self.0.entered.load(Ordering::Relaxed) }
    }
}

/// Marks the current thread (if watched) as in `call` until dropped.
pub(crate) struct Entered(Option<&'static Slot>);

/// The current thread enters `call`.
#[inline]
pub(crate) fn enter(call: Call) -> Entered {
    let slot = WATCHED.with(Cell::get);
    if let Some(s) = slot {
        s.entered.store(s.entered.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        s.call.store(call.0 + 1, Ordering::Relaxed);
    }
    Entered(slot)
}

impl Drop for Entered {
    #[inline]
    fn drop(&mut self) {
        if let Some(s) = self.0 {
            s.call.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{call, enter, CallWatch};

    #[test]
    fn a_watched_thread_s_call_is_seen_from_another() {
        let (tx, rx) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            let watch = CallWatch::this_thread();
            tx.send(watch).unwrap();
            let _in = enter(call::LEGAL_MOVES);
            wait.recv().unwrap();
        });
        let watch = rx.recv().unwrap();
        while watch.now().call.is_none() {
            std::thread::yield_now();
        }
        assert_eq!(watch.now().call, Some("legal_moves"));
        assert_eq!(watch.now().entered, 1);
        go.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(watch.now().call, None, "left when the call returned");
    }
}
