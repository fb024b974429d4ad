//! Live updates: a thread watches the store for commits from any process
//! (a tournament running elsewhere, games played here) and every open page
//! hears of them through server-sent events.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use tokio::sync::watch;
use tokio_stream::wrappers::WatchStream;
use tokio_stream::{Stream, StreamExt};

use super::Shared;
use arbiter_store::Store;

/// How often the store is looked at: well under the 1 s an open page may
/// wait to hear that a game ended.
const POLL: Duration = Duration::from_millis(200);

/// A counter that goes up each time the store changes.
pub(super) struct StoreChanges {
    counter: watch::Receiver<u64>,
}

impl StoreChanges {
    /// Starts watching `store` (a connection of its own, so that commits
    /// through any other connection count as changes).
    pub(super) fn watch(store: Store) -> std::io::Result<StoreChanges> {
        let (tx, rx) = watch::channel(0u64);
        std::thread::Builder::new().name("store-watch".into()).spawn(move || {
            let mut seen = store.data_version().ok();
            while !tx.is_closed() {
                std::thread::sleep(POLL);
                let now = store.data_version().ok();
                if now != seen {
                    seen = now;
                    tx.send_modify(|n| *n += 1);
                }
            }
        })?;
        Ok(StoreChanges { counter: rx })
    }

    /// A stream of the counter: now, then after each change.
    pub(super) fn stream(&self) -> WatchStream<u64> {
        WatchStream::new(self.counter.clone())
    }
}

/// `GET /api/events`: an event `store` (data: the change counter) at once and
/// whenever the store changes; pages refetch what they show.
pub(super) async fn store_events(State(app): State<Shared>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = app.changes.stream().map(|n| Ok(Event::default().event("store").data(n.to_string())));
    Sse::new(events).keep_alive(KeepAlive::default())
}
