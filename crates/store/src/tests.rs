//! What every backend does, checked on both: each case below runs on a new
//! SQLite file and on a new PostgreSQL database (`ARBITER_TEST_POSTGRES`,
//! by default the local server `.ci/run` starts; without one the PostgreSQL
//! half says it skipped, unless `ARBITER_REQUIRE_POSTGRES` is set).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use arbiter_api::Outcome;

use super::{Claim, GameFilter, Lease, QueuedGame, RuleCheck, SlotResult, StopRule, Store, StoredBatch, Tallies};
use arbiter_core::model::Seat;
use arbiter_core::model::{GameRecord, SeenFrame};
use arbiter_play::record::{EventInfo, TournamentSlot};
use arbiter_play::referee::Termination;
use arbiter_testing::record;

/// A new SQLite file's path.
pub(crate) fn sqlite_path(name: &str) -> PathBuf {
    arbiter_testing::temp_folder(&format!("store-{name}")).join("games.db")
}

#[cfg(feature = "postgres")]
/// A store on a new PostgreSQL database, dropped again when the case ends.
struct PostgresStore {
    store: Option<Store>,
    url: PathBuf,
    admin: String,
    database: String,
}

#[cfg(feature = "postgres")]
impl PostgresStore {
    fn new(name: &str) -> Option<PostgresStore> {
        let admin = std::env::var("ARBITER_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres:postgres@localhost/postgres".into());
        let mut client = match ::postgres::Client::connect(&admin, ::postgres::NoTls) {
            Ok(c) => c,
            Err(e) => {
                assert!(std::env::var_os("ARBITER_REQUIRE_POSTGRES").is_none(), "no PostgreSQL at {admin}: {e}");
                eprintln!("skipped: no PostgreSQL at {admin} ({e}); set ARBITER_TEST_POSTGRES");
                return None;
            }
        };
        let database = format!("arbiter_unit_{name}_{}", std::process::id());
        client.batch_execute(&format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)")).unwrap();
        client.batch_execute(&format!("CREATE DATABASE {database}")).unwrap();
        let base = admin.rsplit_once('/').map_or(admin.as_str(), |(b, _)| b);
        let url = PathBuf::from(format!("{base}/{database}"));
        Some(PostgresStore { store: Some(Store::open(&url).unwrap()), url, admin, database })
    }
}

#[cfg(feature = "postgres")]
impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.store.take();
        if let Ok(mut client) = ::postgres::Client::connect(&self.admin, ::postgres::NoTls) {
            let _ = client.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.database));
        }
    }
}

/// Each case as two tests: `sqlite::case` and `postgres::case`.
macro_rules! on_both_backends {
    ($($case:ident),* $(,)?) => {
        mod sqlite {
            $(#[test]
            fn $case() {
                let at = super::sqlite_path(stringify!($case));
                super::$case(&super::Store::open(&at).unwrap(), &at);
            })*
        }
        #[cfg(feature = "postgres")]
        mod postgres {
            $(#[test]
            fn $case() {
                if let Some(pg) = super::PostgresStore::new(stringify!($case)) {
                    super::$case(pg.store.as_ref().unwrap(), &pg.url);
                }
            })*
        }
    };
}

on_both_backends!(
    a_stored_game_reads_back_whole,
    a_batch_is_stored_in_one_transaction_in_order,
    a_listing_filters_pages_and_counts,
    tallies_kept_as_games_are_stored_equal_a_count_over_every_game,
    a_stopping_rule_that_holds_finishes_the_tournament_and_closes_its_queue,
    another_connections_commit_changes_the_data_version,
    a_game_is_queued_once_and_never_after_it_is_stored,
    a_claim_holds_a_game_until_its_lease_runs_out,
    a_claimed_game_is_stored_once_and_counted_for_its_workers_host,
    a_game_named_many_times_in_one_batch_is_stored_and_counted_once,
    released_claims_go_back_and_a_claim_keeps_to_one_tournament,
    tournaments_are_listed_newest_first_with_their_games,
    a_lease_is_refused_while_fresh_and_taken_when_stale,
    a_live_game_shows_its_latest_frame_until_it_is_stored,
    a_copy_renumbers_tournaments_and_refuses_a_store_in_use,
    a_plugin_file_is_kept_once_by_its_hash_and_copied,
    a_queue_entry_names_its_holder_and_who_stored_it,
    worker_tokens_are_kept_by_hash_revoked_once_and_refusals_listed,
    a_tournament_s_results_come_in_the_order_they_were_stored,
    the_games_workers_played_are_listed_with_their_workers,
);

/// A tournament game's event: `index` in tournament `id`, paired with its
/// neighbour, between `seats`.
fn slot(id: i64, index: u32, seats: Vec<usize>) -> EventInfo {
    let tournament = Some(TournamentSlot { id, index, pair: Some(index - index % 2), seats });
    EventInfo { event: "t".into(), round: index + 1, tournament }
}

/// A game that ended `outcome` after a few plies.
fn ended(outcome: Outcome) -> GameRecord {
    let mut r = record(&[0, 1, 0]);
    r.result.outcome = outcome;
    r.result.termination = match outcome {
        Outcome::Win(_) => Termination::Resignation,
        _ => Termination::DrawAgreed,
    };
    r
}

/// Queues games `indices` of tournament `t`.
fn queue(store: &Store, t: i64, indices: &[u32]) -> usize {
    let games: Vec<QueuedGame> = indices
        .iter()
        .map(|&index| QueuedGame {
            tournament: t,
            index,
            event: "t".into(),
            round: index + 1,
            pair: Some(index - index % 2),
            seats: vec![(index % 2) as usize, 1 - (index % 2) as usize],
            job: format!("{{\"index\":{index}}}"),
        })
        .collect();
    store.enqueue(&games).unwrap()
}

fn indices(claims: &[Claim]) -> Vec<u32> {
    claims.iter().map(|c| c.game.index).collect()
}

const MINUTE: Duration = Duration::from_secs(60);

fn a_stored_game_reads_back_whole(store: &Store, _at: &Path) {
    let r = record(&[0, 1, 0, 1, 1]);
    let event = slot(store.add_tournament("t", "{}").unwrap(), 4, vec![1, 0]);
    let id = store.add_game(&r, &event).unwrap();
    let back = store.game(id).unwrap().unwrap();
    assert_eq!(back.record, r);
    assert_eq!(back.slot, event.tournament);
    assert_eq!((back.summary.result.as_str(), back.summary.plies, back.summary.round), ("1/2-1/2", 5, 5));
    assert_eq!(back.summary.termination, Termination::DrawAgreed);
    assert_eq!(back.worker, None);
    assert_eq!(back.pgn(), arbiter_play::record::pgn::write_game(&r, &event));
    assert_eq!(store.game(id + 100).unwrap(), None);
}

fn a_batch_is_stored_in_one_transaction_in_order(store: &Store, _at: &Path) {
    let (a, b) = (ended(Outcome::Win(0)), ended(Outcome::Win(1)));
    let e = EventInfo { event: "batch".into(), round: 1, tournament: None };
    let ids = store.add_games(&[(&a, &e), (&b, &e)]).unwrap();
    assert!(ids[0] < ids[1], "{ids:?}");
    let games = store.games(None).unwrap();
    assert_eq!(games.iter().map(|g| g.summary.result.as_str()).collect::<Vec<_>>(), ["1-0", "0-1"]);
    assert_eq!(store.readable_games(None).unwrap().1, Vec::<String>::new());
}

fn a_listing_filters_pages_and_counts(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    for index in 0..6 {
        let mut r = ended([Outcome::Win(0), Outcome::Win(1), Outcome::Draw][index as usize % 3]);
        r.variant = if index < 4 { "chess".into() } else { "xiangqi".into() };
        r.players = vec![format!("p{index}"), "common".into()];
        let event = if index % 2 == 0 { slot(t, index, vec![0, 1]) } else { EventInfo::default() };
        store.add_game(&r, &event).unwrap();
    }
    let all = GameFilter::default();
    let (page, total) = store.game_list(&all, 4, 0).unwrap();
    assert_eq!((page.len(), total), (4, 6));
    assert!(page.windows(2).all(|w| w[0].id > w[1].id), "newest first");
    let (rest, _) = store.game_list(&all, 4, 4).unwrap();
    assert_eq!(rest.len(), 2);
    let count = |f: GameFilter| store.game_list(&f, 100, 0).unwrap().1;
    assert_eq!(count(GameFilter { variant: Some("xiangqi".into()), ..all.clone() }), 2);
    assert_eq!(count(GameFilter { player: Some("p3".into()), ..all.clone() }), 1);
    assert_eq!(count(GameFilter { player: Some("common".into()), ..all.clone() }), 6);
    assert_eq!(count(GameFilter { result: Some("1/2-1/2".into()), ..all.clone() }), 2);
    assert_eq!(count(GameFilter { termination: Some("resign".into()), ..all.clone() }), 4);
    assert_eq!(count(GameFilter { tournament: Some(t), ..all.clone() }), 3);
}

/// Stores 24 games of three entrants in pairs, out of order, with every
/// outcome and a few games without a result.
pub(super) fn store_paired_games(store: &Store) -> i64 {
    let t = store.add_tournament("t", "{}").unwrap();
    let mut order: Vec<u32> = (0..24).collect();
    order.reverse();
    order.swap(3, 17);
    for index in order {
        let pair = index - index % 2;
        let (a, b) = [(0, 1), (0, 2), (1, 2)][(pair / 2 % 3) as usize];
        let seats = if index % 2 == 0 { vec![a, b] } else { vec![b, a] };
        let outcome = match index % 7 {
            0 | 3 => Outcome::Win(0),
            1 | 5 => Outcome::Win(1),
            6 if index > 10 => Outcome::Ongoing,
            _ => Outcome::Draw,
        };
        store.add_game(&ended(outcome), &slot(t, index, seats)).unwrap();
    }
    t
}

pub(super) fn sorted(mut t: Tallies) -> Tallies {
    t.games.sort();
    t.pairs.sort();
    t
}

fn tallies_kept_as_games_are_stored_equal_a_count_over_every_game(store: &Store, _at: &Path) {
    let t = store_paired_games(store);
    let counted = store.tallies(t).unwrap();
    assert_eq!(counted.games(), 24);
    assert_eq!(counted.pairs.iter().map(|p| p.pairs).sum::<u64>(), 10, "two pairs hold a game without result");
    assert_eq!(sorted(counted), sorted(Tallies::of(&store.tournament_results(t).unwrap())));
    assert_eq!(store.tallies(t + 1).unwrap(), Tallies::default());
}

/// A rule that holds once it has counted `after` games.
struct AfterGames {
    after: usize,
    counted: Mutex<(i64, usize)>,
}

impl StopRule for AfterGames {
    fn counted_through(&self) -> i64 {
        self.counted.lock().unwrap().0
    }

    fn check(&self, games: Vec<(i64, SlotResult)>) -> RuleCheck<'_> {
        let (mut last, mut n) = *self.counted.lock().unwrap();
        for (id, _) in games {
            if id > last {
                (last, n) = (id, n + 1);
            }
        }
        RuleCheck { holds: n >= self.after, keep: Box::new(move || *self.counted.lock().unwrap() = (last, n)) }
    }
}

fn a_stopping_rule_that_holds_finishes_the_tournament_and_closes_its_queue(store: &Store, _at: &Path) {
    let t = store.add_tournament("sprt", "{}").unwrap();
    queue(store, t, &[0, 1, 2, 3, 4]);
    let rule = AfterGames { after: 2, counted: Mutex::new((0, 0)) };
    let first = store.add_game_until(&ended(Outcome::Draw), &slot(t, 0, vec![0, 1]), Some(&rule)).unwrap();
    assert!(!first.stopped && first.id.is_some());
    assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_none());
    let second = store.add_game_until(&ended(Outcome::Win(0)), &slot(t, 1, vec![1, 0]), Some(&rule)).unwrap();
    assert!(second.stopped);
    assert_eq!(*rule.counted.lock().unwrap(), (second.id.unwrap(), 2), "the count is kept once committed");
    assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_some());
    assert!(!store.queue_open(t).unwrap(), "no game of a stopped tournament is claimed again");
    assert!(store.claim("h:1#0", MINUTE, Some(t), &[], 5).unwrap().is_empty());
}

fn another_connections_commit_changes_the_data_version(store: &Store, at: &Path) {
    let other = Store::open(at).unwrap();
    let before = store.data_version().unwrap();
    other.add_game(&ended(Outcome::Draw), &EventInfo::default()).unwrap();
    assert_ne!(store.data_version().unwrap(), before);
}

fn a_game_is_queued_once_and_never_after_it_is_stored(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    store.add_game(&ended(Outcome::Draw), &slot(t, 1, vec![1, 0])).unwrap();
    assert_eq!(queue(store, t, &[0, 1, 2]), 2, "game 1 is stored already");
    assert_eq!(queue(store, t, &[0, 2, 3]), 1, "games 0 and 2 are queued already");
    assert_eq!(store.queued_indices(t).unwrap(), [0, 2, 3]);
    assert_eq!(store.queue_counts(t).unwrap(), (3, 0));
    assert!(store.queue_open(t).unwrap());
}

fn a_claim_holds_a_game_until_its_lease_runs_out(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    queue(store, t, &[0, 1, 2]);
    let mine = store.claim("a:1#0", MINUTE, None, &[], 2).unwrap();
    assert_eq!(indices(&mine), [0, 1], "queue order");
    assert_eq!(mine[0].game.job, "{\"index\":0}");
    assert_eq!(store.queue_counts(t).unwrap(), (1, 2), "one waiting, two being played");
    let short = store.claim("b:1#0", Duration::from_millis(1), None, &[], 5).unwrap();
    assert_eq!(indices(&short), [2]);
    std::thread::sleep(Duration::from_millis(20));
    let after = store.claim("c:1#0", MINUTE, None, &[], 5).unwrap();
    assert_eq!(indices(&after), [2], "only the lapsed claim is taken again");
    store.renew_claims(&mine, MINUTE).unwrap();
    assert!(store.claim("d:1#0", MINUTE, None, &[], 5).unwrap().is_empty());
}

fn a_claimed_game_is_stored_once_and_counted_for_its_workers_host(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    queue(store, t, &[0, 1]);
    let claims = store.claim("box:7#0", Duration::from_millis(1), Some(t), &[], 2).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    // The lease ran out and another worker took game 0 again: both finish it.
    let again = store.claim("other:9#1", MINUTE, Some(t), &[], 1).unwrap();
    assert_eq!(indices(&again), [0]);
    let (r0, r1) = (ended(Outcome::Win(0)), ended(Outcome::Draw));
    let (e0, e1) = (slot(t, 0, vec![0, 1]), slot(t, 1, vec![1, 0]));
    let stored = store.complete_claims(&[(&claims[0], &r0, &e0), (&claims[1], &r1, &e1)], None).unwrap();
    assert!(stored.ids.iter().all(Option::is_some) && !stored.stopped);
    let late = store.complete_claims(&[(&again[0], &r0, &e0)], None).unwrap();
    assert_eq!(late, StoredBatch { ids: vec![None], stopped: false }, "stored once");
    assert_eq!(store.games(Some(t)).unwrap().len(), 2);
    assert_eq!(store.games(Some(t)).unwrap()[0].worker.as_deref(), Some("box:7#0"));
    assert!(!store.queue_open(t).unwrap());
    assert_eq!(store.queue_counts(t).unwrap(), (0, 0));
    let rates = store.worker_rates(t).unwrap();
    assert_eq!(rates.iter().map(|r| (r.host.as_str(), r.games)).collect::<Vec<_>>(), [("box", 2)]);
    assert_eq!(store.tallies(t).unwrap().pairs.len(), 1, "the pair is complete");
}

fn a_game_named_many_times_in_one_batch_is_stored_and_counted_once(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    queue(store, t, &[0, 1]);
    let claims = store.claim("box:7#0", MINUTE, Some(t), &[], 2).unwrap();
    let (r0, r1) = (ended(Outcome::Win(0)), ended(Outcome::Draw));
    let (e0, e1) = (slot(t, 0, vec![0, 1]), slot(t, 1, vec![1, 0]));
    let mut batch = vec![(&claims[0], &r0, &e0); 200];
    batch.push((&claims[1], &r1, &e1));
    batch.push((&claims[1], &r1, &e1));
    let stored = store.complete_claims(&batch, None).unwrap();
    let ids: Vec<usize> = stored.ids.iter().enumerate().filter(|(_, id)| id.is_some()).map(|(i, _)| i).collect();
    assert_eq!(ids, [0, 200], "only each game's first naming is stored");
    assert_eq!(store.games(Some(t)).unwrap().len(), 2);
    let tallies = store.tallies(t).unwrap();
    assert_eq!(tallies.games(), 2, "counted once each: {tallies:?}");
    assert_eq!(tallies.pairs.iter().map(|p| p.pairs).sum::<u64>(), 1, "one pair");
    let rates = store.worker_rates(t).unwrap();
    assert_eq!(rates.iter().map(|r| (r.host.as_str(), r.games)).collect::<Vec<_>>(), [("box", 2)]);
}

fn released_claims_go_back_and_a_claim_keeps_to_one_tournament(store: &Store, _at: &Path) {
    let (t, u) = (store.add_tournament("t", "{}").unwrap(), store.add_tournament("u", "{}").unwrap());
    queue(store, t, &[0, 1]);
    queue(store, u, &[0, 1, 2]);
    let first = store.claim("a:1#0", MINUTE, None, &[], 4).unwrap();
    assert_eq!(indices(&first), [0, 1]);
    assert!(first.iter().all(|c| c.game.tournament == t), "a batch never spans two tournaments");
    assert_eq!(store.queue_counts(u).unwrap(), (3, 0), "the other tournament's game went back");
    store.release_claims(&first).unwrap();
    assert_eq!(store.queue_counts(t).unwrap(), (2, 0));
    let skipping = store.claim("b:1#0", MINUTE, None, &[t], 1).unwrap();
    assert_eq!((skipping[0].game.tournament, skipping[0].game.index), (u, 0));
    let only = store.claim("b:1#0", MINUTE, Some(t), &[], 1).unwrap();
    assert_eq!((only[0].game.tournament, only[0].game.index), (t, 0));
}

fn tournaments_are_listed_newest_first_with_their_games(store: &Store, _at: &Path) {
    assert_eq!(store.tournament(None).unwrap(), None);
    let t = store.add_tournament("old", "{\"rounds\":1}").unwrap();
    let u = store.add_tournament("new", "{}").unwrap();
    store.add_game(&ended(Outcome::Draw), &slot(t, 0, vec![0, 1])).unwrap();
    store.finish_tournament(t).unwrap();
    let old = store.tournament(Some(t)).unwrap().unwrap();
    assert_eq!((old.name.as_str(), old.config.as_str()), ("old", "{\"rounds\":1}"));
    assert!(old.finished_at.is_some());
    assert_eq!(store.tournament(None).unwrap().unwrap().id, u, "the latest");
    let listed: Vec<(i64, u64)> = store.tournament_list().unwrap().into_iter().map(|(t, n)| (t.id, n)).collect();
    assert_eq!(listed, [(u, 0), (t, 1)]);
}

fn a_lease_is_refused_while_fresh_and_taken_when_stale(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    let lease = |holder: &str, heartbeat| Lease { holder: holder.into(), pid: 7, heartbeat, in_process: true };
    assert_eq!(store.take_lease(t, &lease("a:7", 100), |_| false).unwrap(), Ok(None));
    assert_eq!(store.take_lease(t, &lease("b:8", 101), |_| false).unwrap(), Err(lease("a:7", 100)));
    store.renew_lease(t, "a:7", 150).unwrap();
    let taken = store.take_lease(t, &lease("b:8", 200), |held| held.heartbeat < 160).unwrap();
    assert_eq!(taken, Ok(Some(lease("a:7", 150))));
    store.release_lease(t, "a:7").unwrap();
    assert_eq!(store.take_lease(t, &lease("c:9", 300), |_| false).unwrap(), Err(lease("b:8", 200)), "not a's to give");
    store.release_lease(t, "b:8").unwrap();
    assert_eq!(store.take_lease(t, &lease("c:9", 300), |_| false).unwrap(), Ok(None));
}

fn a_live_game_shows_its_latest_frame_until_it_is_stored(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    let frame = |ply| SeenFrame {
        ply,
        to_move: Seat::new(ply % 2),
        observation: Default::default(),
        last_move: Some(format!("m{ply}")),
        clocks: vec![Some(1000), None],
        result: None,
    };
    let players = ["a".to_string(), "b".to_string()];
    store.set_live(t, 3, "chess", &players, &frame(1)).unwrap();
    store.set_live(t, 3, "chess", &players, &frame(2)).unwrap();
    store.set_live(t, 1, "xiangqi", &players, &frame(5)).unwrap();
    let live = store.live_games(t).unwrap();
    assert_eq!(live.iter().map(|g| (g.index, g.frame.ply)).collect::<Vec<_>>(), [(1, 5), (3, 2)]);
    assert_eq!((live[1].variant.as_str(), &live[1].players[..], &live[1].frame), ("chess", &players[..], &frame(2)));
    store.add_game(&ended(Outcome::Draw), &slot(t, 3, vec![0, 1])).unwrap();
    assert_eq!(store.live_games(t).unwrap().iter().map(|g| g.index).collect::<Vec<_>>(), [1]);
    store.clear_live(t).unwrap();
    assert!(store.live_games(t).unwrap().is_empty());
}

fn a_copy_renumbers_tournaments_and_refuses_a_store_in_use(store: &Store, _at: &Path) {
    let _gap = store.add_tournament("gap", "{}").unwrap();
    let t = store_paired_games(store);
    store.finish_tournament(t).unwrap();
    store.add_game(&ended(Outcome::Win(1)), &EventInfo::default()).unwrap();
    let to = Store::open(&sqlite_path(&format!("copy-{}", store.location().len()))).unwrap();
    assert_eq!(store.copy_into(&to).unwrap(), (2, 25));
    let copied = to.tournament(None).unwrap().unwrap();
    assert!(copied.finished_at.is_some());
    assert_eq!(sorted(to.tallies(copied.id).unwrap()), sorted(store.tallies(t).unwrap()));
    let error = store.copy_into(&to).unwrap_err().to_string();
    assert!(error.contains("copy into an empty store"), "{error}");
}

fn a_plugin_file_is_kept_once_by_its_hash_and_copied(store: &Store, _at: &Path) {
    let bytes: Vec<u8> = (0..=255u8).cycle().take(70_000).collect();
    store.put_plugin_file("ab12", "arbiter_x.wasm", &bytes).unwrap();
    store.put_plugin_file("ab12", "renamed.wasm", b"other").unwrap();
    assert_eq!(store.plugin_file("ab12").unwrap(), Some(("arbiter_x.wasm".to_string(), bytes.clone())));
    assert_eq!(store.plugin_file("cd34").unwrap(), None);
    assert_eq!(store.plugin_file_hashes().unwrap(), ["ab12"]);
    let to = Store::open(&sqlite_path(&format!("plugin-copy-{}", store.location().len()))).unwrap();
    store.copy_into(&to).unwrap();
    assert_eq!(to.plugin_file("ab12").unwrap(), Some(("arbiter_x.wasm".to_string(), bytes)));
}

fn a_queue_entry_names_its_holder_and_who_stored_it(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    queue(store, t, &[0, 1]);
    assert_eq!(store.queue_entry(t, 5).unwrap(), None);
    let claims = store.claim("lab:h:1#0", MINUTE, Some(t), &[], 1).unwrap();
    let entry = store.queue_entry(t, 0).unwrap().unwrap();
    assert_eq!((entry.holder.as_deref(), entry.stored, entry.stored_by), (Some("lab:h:1#0"), false, None));
    assert_eq!(entry.game, claims[0].game, "the job as queued");
    store.complete_claims(&[(&claims[0], &ended(Outcome::Draw), &slot(t, 0, vec![0, 1]))], None).unwrap();
    let entry = store.queue_entry(t, 0).unwrap().unwrap();
    assert!(entry.stored && entry.stored_by.as_deref() == Some("lab:h:1#0"));
    assert_eq!(store.queue_entry(t, 1).unwrap().unwrap().holder, None);
}

fn worker_tokens_are_kept_by_hash_revoked_once_and_refusals_listed(store: &Store, _at: &Path) {
    assert!(store.add_worker_token("lab-1", "aa", None).unwrap());
    assert!(!store.add_worker_token("lab-1", "bb", None).unwrap(), "one token a name");
    assert!(store.add_worker_token("lab-2", "cc", Some(Duration::from_secs(60))).unwrap());
    let lab1 = store.worker_token("aa").unwrap().unwrap();
    assert_eq!((lab1.name.as_str(), lab1.revoked_ms, lab1.expires_ms), ("lab-1", None, None));
    let lab2 = store.worker_token("cc").unwrap().unwrap();
    assert_eq!(lab2.expires_ms, Some(lab2.issued_ms + 60_000));
    assert_eq!(store.worker_token("bb").unwrap(), None);
    assert!(store.revoke_worker_token("lab-1").unwrap());
    assert!(!store.revoke_worker_token("lab-1").unwrap());
    assert!(store.worker_token("aa").unwrap().unwrap().revoked_ms.is_some());
    assert_eq!(store.worker_tokens().unwrap().iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["lab-1", "lab-2"]);
    let refusal = |t: i64, index: u32| super::Refusal {
        kind: super::RefusalKind::Forged,
        worker: "lab-1".into(),
        tournament: t,
        index,
        reason: "move 3: illegal".into(),
        at_ms: 5,
    };
    store.add_refusal(&refusal(1, 4)).unwrap();
    store.add_refusal(&refusal(2, 0)).unwrap();
    assert_eq!(store.refusals(Some(1)).unwrap(), [refusal(1, 4)]);
    assert_eq!(store.refusals(None).unwrap().len(), 2);
    assert_eq!(store.forgeries("lab-1").unwrap(), 2);
    // An unconfirmed upload waits, with its record, until its game is stored.
    let t = store.add_tournament("t", "{}").unwrap();
    queue(store, t, &[0, 1]);
    let unconfirmed = super::Refusal { kind: super::RefusalKind::Unconfirmed, ..refusal(t, 1) };
    let record = ended(Outcome::Win(0));
    store.hold_upload(&unconfirmed, &record).unwrap();
    assert_eq!(store.awaiting_confirmation(t).unwrap(), 1);
    let held = store.unconfirmed(t, 1).unwrap();
    assert_eq!((held.len(), &held[0].0), (1, &unconfirmed));
    assert_eq!(held[0].1.as_ref().unwrap().result, record.result);
    assert!(store.unconfirmed(t, 0).unwrap().is_empty());
    assert_eq!(store.forgeries("lab-1").unwrap(), 2, "an unconfirmed upload is no forgery");
    let claims = store.claim("box:1#0", MINUTE, Some(t), &[], 2).unwrap();
    let event = slot(t, 1, vec![1, 0]);
    let second = claims.iter().find(|c| c.game.index == 1).unwrap();
    store.complete_claims(&[(second, &record, &event)], None).unwrap();
    assert_eq!(store.awaiting_confirmation(t).unwrap(), 0, "stored: nothing waits");
}

/// A tune's state is its games replayed in store order (`tournament::tune`),
/// whatever order the schedule gives them, one by one or in a worker's batch.
fn a_tournament_s_results_come_in_the_order_they_were_stored(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    for index in [5, 0] {
        store.add_game(&ended(Outcome::Win(0)), &slot(t, index, vec![0, 1])).unwrap();
    }
    queue(store, t, &[1, 3]);
    let claims = store.claim("h:1#0", MINUTE, Some(t), &[], 2).unwrap();
    let (r, e3, e1) = (ended(Outcome::Draw), slot(t, 3, vec![1, 0]), slot(t, 1, vec![1, 0]));
    let by_index = |i: u32| claims.iter().find(|c| c.game.index == i).unwrap();
    store.complete_claims(&[(by_index(3), &r, &e3), (by_index(1), &r, &e1)], None).unwrap();
    store.add_game(&ended(Outcome::Win(1)), &slot(t, 2, vec![0, 1])).unwrap();
    let order: Vec<u32> = store.tournament_results(t).unwrap().iter().map(|g| g.index).collect();
    assert_eq!(order, [5, 0, 3, 1, 2]);
}

fn the_games_workers_played_are_listed_with_their_workers(store: &Store, _at: &Path) {
    let t = store.add_tournament("t", "{}").unwrap();
    store.add_game(&ended(Outcome::Win(0)), &slot(t, 0, vec![0, 1])).unwrap();
    queue(store, t, &[1, 2]);
    let claims = store.claim("lab-2:h#0", MINUTE, Some(t), &[], 2).unwrap();
    let (won, drawn) = (ended(Outcome::Win(1)), ended(Outcome::Draw));
    let (e1, e2) = (slot(t, 1, vec![1, 0]), slot(t, 2, vec![0, 1]));
    store.complete_claims(&[(&claims[0], &won, &e1), (&claims[1], &drawn, &e2)], None).unwrap();
    let listed: Vec<(Option<Seat>, String, String)> =
        store.worker_games(t).unwrap().into_iter().map(|(g, w)| (g.winner, g.result, w)).collect();
    assert_eq!(
        listed,
        [
            (Some(Seat::SECOND), "0-1".to_string(), "lab-2:h#0".to_string()),
            (None, "1/2-1/2".into(), "lab-2:h#0".into())
        ],
        "the workers' games only, in store order"
    );
    assert!(store.worker_games(t + 1).unwrap().is_empty());
}

#[cfg(feature = "postgres")]
/// PostgreSQL's schema history: opening a store again runs no migration
/// twice, and a store whose recorded migration differs from this build's
/// is refused, naming it.
#[test]
fn a_postgres_store_migrates_once_and_a_divergent_history_is_refused() {
    let Some(pg) = PostgresStore::new("history") else { return };
    let mut client = ::postgres::Client::connect(pg.url.to_str().unwrap(), ::postgres::NoTls).unwrap();
    let mut history = || {
        let row = client.query_one("SELECT count(*), max(version) FROM refinery_schema_history", &[]).unwrap();
        (row.get::<_, i64>(0), row.get::<_, i32>(1))
    };
    let first = history();
    assert_eq!(first.0, i64::from(first.1), "one row a version");
    drop(Store::open(&pg.url).unwrap());
    assert_eq!(history(), first);
    client.execute("UPDATE refinery_schema_history SET checksum = '1' WHERE version = 3", &[]).unwrap();
    let refused = Store::open(&pg.url).err().expect("refused").to_string();
    assert!(refused.contains("migration V3__games_by_tournament differs from this arbiter's"), "{refused}");
}
