//! Locks that survive a panic elsewhere: a thread that panicked while
//! holding a lock leaves data that is still the best there is (a progress
//! report, a store connection), so every lock in arbiter recovers it.

use std::sync::{Mutex, MutexGuard};

/// [`Mutex::lock`], taking the data over from a thread that panicked.
pub trait LockExt<T> {
    /// The guard, poisoned or not.
    fn lock_or_recover(&self) -> MutexGuard<'_, T>;
}

impl<T> LockExt<T> for Mutex<T> {
    fn lock_or_recover(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(|e| e.into_inner())
    }
}
