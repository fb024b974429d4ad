//! The watchdog's view of a game in progress: how long the game may go
//! without progress before it is declared hung, and the plies played so far,
//! so that a game lost to a hung or crashed plugin keeps its moves. Players
//! are wrapped in [`Paced`], which widens the allowance while one thinks; the
//! referee reports each ply to a [`Pulse`] through its watcher hook.

use arbiter_core::sync::LockExt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use arbiter_core::model::{PlyRecord, Seat};
use arbiter_core::seat::{Seen, Start, Turn};
use arbiter_core::verdict::GameResult;
use arbiter_play::players::{MoveWait, Player, PlayerError, Reply};

/// Progress of one game, shared between the thread playing it and whoever
/// watches over it.
#[derive(Debug)]
pub struct Pulse {
    /// When the game last made progress.
    pub last: Instant,
    /// How long it may go without progress from `last`.
    pub allowance: Duration,
    /// Plies not yet taken by [`Pulse::take_plies`].
    pub plies: Vec<PlyRecord>,
    /// Whether anything changed since the last [`Pulse::take_changed`].
    pub changed: bool,
    grace: Duration,
}

/// A [`Pulse`] shared between threads.
pub type SharedPulse = Arc<Mutex<Pulse>>;

impl Pulse {
    /// A pulse allowing `grace` of silence outside a player's thinking time.
    pub fn shared(grace: Duration) -> SharedPulse {
        Arc::new(Mutex::new(Pulse { last: Instant::now(), allowance: grace, plies: Vec::new(), changed: false, grace }))
    }

    /// Locks a shared pulse (a panic elsewhere cannot poison progress reports).
    pub fn lock(pulse: &SharedPulse) -> std::sync::MutexGuard<'_, Pulse> {
        pulse.lock_or_recover()
    }

    /// Progress now, allowing `extra` beyond the grace until the next.
    pub fn beat(&mut self, extra: Duration) {
        self.last = Instant::now();
        self.allowance = self.grace + extra;
        self.changed = true;
    }

    /// A ply was played.
    pub fn ply(&mut self, ply: &PlyRecord) {
        self.plies.push(ply.clone());
        self.beat(Duration::ZERO);
    }

    /// Whether the allowance has run out.
    pub fn stalled(&self) -> bool {
        self.last.elapsed() > self.allowance
    }

    /// How long until the allowance runs out, if nothing beats before.
    pub fn left(&self) -> Duration {
        self.allowance.saturating_sub(self.last.elapsed())
    }

    /// The plies recorded since the last call.
    pub fn take_plies(&mut self) -> Vec<PlyRecord> {
        std::mem::take(&mut self.plies)
    }

    /// Whether anything changed since the last call.
    pub fn take_changed(&mut self) -> bool {
        std::mem::replace(&mut self.changed, false)
    }

    /// A new game starts, with `grace` of silence allowed: no plies yet.
    pub fn restart(&mut self, grace: Duration) {
        self.grace = grace;
        self.plies.clear();
        self.beat(Duration::ZERO);
        self.changed = false;
    }
}

/// A player whose thinking widens the watchdog's allowance: before each
/// move by the time it may take ([`MoveWait`]: its clock, or its hang
/// limit), or without bound for a person.
pub struct Paced {
    /// The player.
    pub inner: Box<dyn Player>,
    /// The game's pulse.
    pub pulse: SharedPulse,
    /// A person: the watchdog waits for them as long as it takes.
    pub person: bool,
}

/// The allowance while a person thinks: the watchdog waits.
const A_PERSON: Duration = Duration::from_secs(100 * 365 * 24 * 3600);

impl Player for Paced {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn engine_name(&self) -> Option<String> {
        self.inner.engine_name()
    }
    fn new_game(&mut self, start: &Start<'_>) -> Result<(), PlayerError> {
        // Engines may take their handshake time to start.
        Pulse::lock(&self.pulse).beat(Duration::from_secs(30));
        let r = self.inner.new_game(start);
        Pulse::lock(&self.pulse).beat(Duration::ZERO);
        r
    }
    fn choose(&mut self, turn: &Turn<'_>) -> Result<Reply, PlayerError> {
        let limit_ms = MoveWait::of(turn).limit_ms;
        let extra = match (self.person, self.inner.on_virtual_clock()) {
            (true, _) => A_PERSON,
            // Its own work bounds its move, not the wall clock: a loaded
            // machine may take many times its budget in real time.
            (false, true) => Duration::from_millis(limit_ms.saturating_mul(VIRTUAL_SLACK) + 30_000),
            (false, false) => Duration::from_millis(limit_ms + 1_000),
        };
        Pulse::lock(&self.pulse).beat(extra);
        let r = self.inner.choose(turn);
        Pulse::lock(&self.pulse).beat(Duration::ZERO);
        r
    }
    fn pin_to_cpu(&mut self, cpu: usize) -> Result<(), arbiter_core::process::AffinityError> {
        self.inner.pin_to_cpu(cpu)
    }
    fn take_options(&mut self, options: &[(String, String)]) -> bool {
        self.inner.take_options(options)
    }
    fn notify(&mut self, seen: &Seen<'_>) {
        self.inner.notify(seen);
    }
    fn accepts_draw(&mut self, from: Seat) -> bool {
        self.inner.accepts_draw(from)
    }
    fn game_over(&mut self, result: &GameResult, me: Seat) {
        self.inner.game_over(result, me);
    }
    fn on_virtual_clock(&self) -> bool {
        self.inner.on_virtual_clock()
    }
}

/// How many times its budget a player on a virtual clock may take in real
/// time before the watchdog takes the game for hung.
const VIRTUAL_SLACK: u64 = 20;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{Paced, Pulse};
    use arbiter_core::seat::Player;
    use arbiter_testing::{game_config, options, race, Scripted};

    #[test]
    fn a_pulse_stalls_only_once_its_allowance_has_run_out_and_a_ply_renews_it() {
        let pulse = Pulse::shared(Duration::from_millis(30));
        assert!(!Pulse::lock(&pulse).stalled());
        std::thread::sleep(Duration::from_millis(50));
        assert!(Pulse::lock(&pulse).stalled());
        let ply = arbiter_testing::record(&[0]).plies[0].clone();
        Pulse::lock(&pulse).ply(&ply);
        let mut p = Pulse::lock(&pulse);
        assert!(!p.stalled() && p.take_changed() && !p.take_changed());
        assert_eq!(p.take_plies(), [ply]);
        assert!(p.take_plies().is_empty());
        p.beat(Duration::from_secs(60));
        assert_eq!(p.allowance, Duration::from_secs(60) + Duration::from_millis(30), "the grace and the extra");
        p.restart(Duration::from_secs(5));
        assert_eq!((p.allowance, p.changed, p.plies.len()), (Duration::from_secs(5), false, 0));
    }

    #[test]
    fn paced_players_play_as_themselves_and_every_ply_reaches_the_pulse() {
        let variant = race(arbiter_fixture::Fault::None);
        let pulse = Pulse::shared(Duration::from_secs(5));
        let mut players: Vec<Box<dyn Player>> = (0..2)
            .map(|_| {
                let inner: Box<dyn Player> = Box::new(Scripted::new(vec![]));
                Box::new(Paced { inner, pulse: pulse.clone(), person: false }) as Box<dyn Player>
            })
            .collect();
        let mut watch = crate::games::GameWatch { pulse: &pulse, journal: None, live: None };
        let start = arbiter_play::referee::StartFrom::Standard;
        let opts = options(&variant, serde_json::json!({}));
        let record =
            arbiter_play::referee::play_game_watched(&variant, &opts, start, &mut players, &game_config(), &mut watch)
                .unwrap();
        assert_eq!(record.players, ["scripted", "scripted"]);
        assert_eq!(Pulse::lock(&pulse).take_plies(), record.plies, "the watchdog keeps every ply");
    }
}
