//! The coordinator against workers honest and not, on a store in memory.

use arbiter_core::model::Seat;
use std::sync::Arc;
use std::time::Duration;

use arbiter_api::Outcome;

use super::{issue_token, Coordinator, RequestError};
use crate::queue::{enqueue_pending, planned};
use crate::wire::{
    ClaimRequest, ClaimResponse, ClaimedGame, Held, QueueState, TournamentPins, Upload, UploadedGame, Verdict,
};
use arbiter_core::plugin::Registry;
use arbiter_play::referee::Termination;
use arbiter_store::Store;
use arbiter_testing::definition;
use arbiter_testing::play_in_process;
use arbiter_testing::{race, temp_store};
use arbiter_tournament::pins::PluginPin;
use arbiter_tournament::worker::Job;

const PIN: &str = "5d41402abc4b2a76b9719d911017c592ae5d41402abc4b2a76b9719d911017c5";

/// A coordinator over a store holding a queued round robin of the
/// fixture's race between three seeded players, its plugin pinned.
fn coordinator(name: &str) -> (Coordinator, Arc<Store>, i64) {
    let players = [("a", "random:seed=1"), ("b", "random:seed=2"), ("c", "random:seed=3")];
    let mut definition = definition("name = \"remote\"\nformat = \"round-robin\"\nrounds = 2", &players, &["race"]);
    let pin = PluginPin {
        file: "libarbiter_race.so".into(),
        sha256: PIN.into(),
        api_version: "0.1.0".into(),
        definition: None,
    };
    definition.plugins.insert("race".into(), pin);
    queued(name, &definition)
}

/// A coordinator over a new store holding `definition` (of the
/// fixture's race) registered as `name`, its games queued.
fn queued(name: &str, definition: &arbiter_tournament::view::StoredDefinition) -> (Coordinator, Arc<Store>, i64) {
    let store = Arc::new(temp_store());
    let id = store.add_tournament(name, &serde_json::to_string(definition).unwrap()).unwrap();
    let registry = Arc::new(Registry::of([race(arbiter_fixture::Fault::None)]));
    enqueue_pending(&store, &planned(&registry, &store, id).unwrap()).unwrap();
    (Coordinator::new(registry, store.clone(), Duration::from_secs(60)), store, id)
}

fn claim(c: &Coordinator, worker: &str, most: usize) -> ClaimResponse {
    let request = ClaimRequest { slot: "host:1#0".into(), tournament: None, skip: vec![], most };
    c.claim(worker, &request).unwrap()
}

/// The game a claim describes, played honestly, as an upload.
fn honest(c: &Coordinator, game: &ClaimedGame) -> UploadedGame {
    let record = play_in_process(&c.registry, &game.job);
    let pin = PluginPin {
        file: "libarbiter_race.so".into(),
        sha256: PIN.into(),
        api_version: "0.1.0".into(),
        definition: None,
    };
    let pins = TournamentPins { plugins: [("race".to_string(), pin)].into(), engines: Default::default() };
    UploadedGame { key: game.key, record, pins }
}

fn upload(c: &Coordinator, worker: &str, holder: &str, games: Vec<UploadedGame>) -> Vec<Verdict> {
    c.upload(worker, &Upload { holder: holder.into(), games }).unwrap().verdicts
}

#[test]
fn a_game_uploaded_under_a_revoked_token_is_refused_and_held_for_the_admin() {
    let (c, store, t) = coordinator("revoked-upload");
    let token = issue_token(&store, "w1", None).unwrap();
    let claimed = claim(&c, "w1", 1);
    let game = honest(&c, &claimed.games[0]);
    assert!(store.revoke_worker_token("w1").unwrap());
    let upload = Upload { holder: claimed.holder.clone(), games: vec![game] };
    let identity = c.identify(Some(&token)).unwrap();
    let refused = c.upload_as_identity(&identity, &upload).unwrap_err().to_string();
    assert_eq!(refused, "the token of worker 'w1' is revoked");
    assert!(store.games(Some(t)).unwrap().is_empty(), "nothing counted");
    let held = store.held_uploads("w1").unwrap();
    assert_eq!(held.len(), 1);
    assert!(held[0].0.reason.contains("was revoked: its results are held"), "{}", held[0].0.reason);
    assert!(held[0].1.is_ok(), "its record kept");
    let entry = store.queue_entry(t, claimed.games[0].key.index).unwrap().unwrap();
    assert!(entry.holder.is_none(), "its game given back at once");
    let unknown = c.identify(Some("arbw_00")).unwrap_err().to_string();
    assert_eq!(unknown, "unknown worker token");
    assert_eq!(store.held_uploads("w1").unwrap().len(), 1, "an unknown token holds nothing");
}

#[test]
fn a_token_is_shown_once_kept_as_its_hash_and_refused_once_revoked() {
    let (c, store, _) = coordinator("tokens");
    let token = issue_token(&store, "w1", None).unwrap();
    assert!(token.starts_with("arbw_") && token.len() == 69, "{token}");
    assert_eq!(c.authenticate(Some(&token)).unwrap(), "w1");
    let kept = serde_json::to_string(&store.worker_tokens().unwrap()).unwrap();
    assert!(!kept.contains(&token[5..]), "the store keeps no token: {kept}");
    assert!(issue_token(&store, "w1", None).unwrap_err().to_string().contains("has a token already"));
    assert!(issue_token(&store, "w:1", None).unwrap_err().to_string().contains("letters, digits"));
    let unknown = c.authenticate(Some("arbw_00")).unwrap_err();
    assert!(matches!(unknown, RequestError::Unauthorized(ref m) if m == "unknown worker token"), "{unknown}");
    assert!(matches!(c.authenticate(None), Err(RequestError::Unauthorized(_))));
    assert!(store.revoke_worker_token("w1").unwrap());
    let revoked = c.authenticate(Some(&token)).unwrap_err().to_string();
    assert_eq!(revoked, "the token of worker 'w1' is revoked");
    assert!(!store.revoke_worker_token("w1").unwrap(), "revoked once");
    let brief = issue_token(&store, "brief", Some(Duration::from_millis(1))).unwrap();
    std::thread::sleep(Duration::from_millis(5));
    let expired = c.authenticate(Some(&brief)).unwrap_err().to_string();
    assert_eq!(expired, "the token of worker 'brief' has expired");
}

#[test]
fn honest_games_are_verified_and_stored_once_and_a_resend_is_answered_already_stored() {
    let (c, store, t) = coordinator("honest");
    let claimed = claim(&c, "w1", 2);
    assert_eq!((claimed.games.len(), claimed.holder.as_str()), (2, "w1:host:1#0"));
    assert_eq!(claimed.pins.as_ref().unwrap().plugins["race"].sha256, PIN);
    let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
    assert_eq!(upload(&c, "w1", &claimed.holder, games.clone()), [Verdict::Stored, Verdict::Stored]);
    // The answer was lost: the worker sends the batch again.
    let again = [Verdict::AlreadyStored, Verdict::AlreadyStored];
    assert_eq!(upload(&c, "w1", &claimed.holder, games), again);
    let stored = store.games(Some(t)).unwrap();
    assert_eq!(stored.len(), 2);
    assert!(stored.iter().all(|g| g.worker.as_deref() == Some("w1:host:1#0")));
    let names = ["a", "b", "c"];
    assert!(stored.iter().all(|g| g.record.players.iter().all(|p| names.contains(&p.as_str()))), "entrants' names");
}

#[test]
fn a_game_named_200_times_in_one_upload_is_stored_and_counted_once() {
    let (c, store, t) = coordinator("repeated");
    let claimed = claim(&c, "w1", 2);
    let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
    let mut repeated = vec![games[0].clone(); 200];
    repeated.push(games[1].clone());
    let verdicts = upload(&c, "w1", &claimed.holder, repeated.clone());
    assert_eq!(verdicts[0], Verdict::Stored);
    assert_eq!(verdicts[200], Verdict::Stored);
    assert!(verdicts[1..200].iter().all(|v| *v == Verdict::AlreadyStored), "{:?}", &verdicts[..3]);
    let verdicts = upload(&c, "w1", &claimed.holder, repeated);
    assert!(verdicts.iter().all(|v| *v == Verdict::AlreadyStored), "a second request changes nothing");
    assert_eq!(store.games(Some(t)).unwrap().len(), 2);
    assert_eq!(store.tallies(t).unwrap().games(), 2, "counted once each");
}

/// `game` cut after its first `plies` plies and ended `termination`, the
/// seat `winner` winning (a draw without one): legal move by move.
fn forge(
    c: &Coordinator,
    game: &UploadedGame,
    plies: usize,
    termination: Termination,
    winner: Option<u32>,
) -> UploadedGame {
    let mut g = game.clone();
    g.record.plies.truncate(plies);
    let variant = c.registry.get(&g.record.variant).unwrap();
    let r = &g.record;
    g.record.final_position =
        arbiter_play::referee::position_after(variant, &r.options, &r.start_position, &r.plies).unwrap();
    g.record.result.outcome = winner.map_or(Outcome::Draw, Outcome::Win);
    g.record.result.termination = termination;
    g
}

/// 320 games legal move by move, ending as built-in players never end
/// one (MCTS resigning, crashing, playing an illegal move, agreeing a
/// draw; a flag without a clock), uploaded against an SPRT "random is
/// stronger than MCTS": every one is refused as forged, nothing is
/// stored or counted, the SPRT's tally stays empty, and the worker's
/// token is suspended after ten.
#[test]
fn outcomes_built_in_players_cannot_give_are_refused_and_cannot_move_an_sprt() {
    let players = [("random", "random:seed=1"), ("mcts", "mcts:iterations=5")];
    let head = "name = \"sprt\"\nvariants = [\"race\"]\ngames_per_pairing = 2\nrounds = 160\n[sprt]\nelo0 = 0.0\nelo1 = 200.0\n\
                alpha = 0.05\nbeta = 0.05";
    let (c, store, t) = queued("sprt", &definition(head, &players, &["race"]));
    issue_token(&store, "forger", None).unwrap();
    let endings = [
        (Termination::Resignation, "it never resigns"),
        (Termination::EngineCrashed("gone".into()), "it never crashes"),
        (Termination::IllegalMove("+7".into()), "it never plays an illegal move"),
        (Termination::DrawAgreed, "it never offers or accepts a draw"),
        (Termination::TimeForfeit(Some(3)), "lost on time"),
    ];
    let mut forged = 0;
    while forged < 320 {
        let claimed = claim(&c, "forger", 64);
        assert!(!claimed.games.is_empty(), "games left to forge");
        let games: Vec<UploadedGame> = claimed
            .games
            .iter()
            .enumerate()
            .map(|(i, g)| {
                let mcts = g.job.setup.seats.iter().position(|s| s.name == "mcts").unwrap() as u32;
                let (termination, _) = endings[(forged + i) % endings.len()].clone();
                let winner = (termination != Termination::DrawAgreed).then_some(1 - mcts);
                // MCTS to move, as a fault's loser is.
                forge(&c, &honest(&c, g), 2 + mcts as usize, termination, winner)
            })
            .collect();
        let n = games.len();
        for (i, v) in upload(&c, "forger", &claimed.holder, games).into_iter().enumerate() {
            let says = endings[(forged + i) % endings.len()].1;
            assert!(matches!(&v, Verdict::Refused(why) if why.contains(says)), "{v:?} should say '{says}'");
        }
        forged += n;
    }
    assert!(store.games(Some(t)).unwrap().is_empty(), "nothing forged is stored");
    assert_eq!(store.tallies(t).unwrap().games(), 0, "nor counted");
    assert_eq!(store.tournament(Some(t)).unwrap().unwrap().finished_at, None, "the SPRT has not decided");
    assert!(store.forgeries("forger").unwrap() >= 320);
    let token = store.worker_tokens().unwrap().into_iter().find(|w| w.name == "forger").unwrap();
    assert!(token.revoked_ms.is_some(), "suspended after {} forgeries", super::SUSPEND_AFTER);
}

/// Engines can resign, crash and agree draws, but the record cannot
/// show that they did: such a result is kept, not counted, until a
/// second worker's game of the same job ends alike (or the operator
/// accepts it); a game the rules end counts at once.
#[test]
fn an_engine_s_resignation_counts_once_a_second_worker_s_game_agrees() {
    let players = [("a", "engine:python3 a.py"), ("b", "engine:python3 b.py")];
    let definition = definition("name = \"engines\"\nformat = \"round-robin\"\nrounds = 3", &players, &["race"]);
    let (c, store, t) = queued("engines", &definition);
    // The record as an engine game's: the seats' moves by scripted players.
    let played = |g: &ClaimedGame| {
        let mut job = g.job.clone();
        let names: Vec<String> = job.setup.seats.iter().map(|s| s.name.clone()).collect();
        for seat in &mut job.setup.seats {
            seat.spec = "random:seed=9".into();
        }
        let mut uploaded = honest(&c, &ClaimedGame { job, ..g.clone() });
        uploaded.record.players = names;
        uploaded
    };
    let first = claim(&c, "w1", 1);
    let game = &first.games[0];
    let resigned = forge(&c, &played(game), 2, Termination::Resignation, Some(0));
    let verdict = upload(&c, "w1", &first.holder, vec![resigned.clone()]);
    assert!(matches!(&verdict[0], Verdict::Unconfirmed(why) if why.contains("a resignation rests on")), "{verdict:?}");
    assert!(store.games(Some(t)).unwrap().is_empty(), "not counted yet");
    assert_eq!(store.awaiting_confirmation(t).unwrap(), 1);
    // The game is another worker's to play now; w1 is not given it again.
    let again = claim(&c, "w1", 8);
    assert!(again.games.iter().all(|g| g.key.index != game.key.index));
    c.release("w1", &Held { holder: again.holder.clone(), games: again.games.iter().map(|g| g.key).collect() })
        .unwrap();
    // A second worker's game that ends otherwise is kept too.
    let second = claim(&c, "w2", 1);
    assert_eq!(second.games[0].key.index, game.key.index);
    let crashed = forge(&c, &played(game), 3, Termination::EngineCrashed("gone".into()), Some(0));
    let verdict = upload(&c, "w2", &second.holder, vec![crashed]);
    assert!(matches!(&verdict[0], Verdict::Unconfirmed(_)), "{verdict:?}");
    // A third that agrees with the first: it counts.
    let third = claim(&c, "w3", 1);
    assert_eq!(third.games[0].key.index, game.key.index);
    let verdict = upload(&c, "w3", &third.holder, vec![resigned]);
    assert_eq!(verdict, [Verdict::Stored]);
    assert_eq!(store.games(Some(t)).unwrap().len(), 1);
    assert_eq!(store.awaiting_confirmation(t).unwrap(), 0);
    // A game the rules end counts at once.
    let next = claim(&c, "w1", 1);
    let verdict = upload(&c, "w1", &next.holder, vec![played(&next.games[0])]);
    assert_eq!(verdict, [Verdict::Stored]);
    // Or the operator accepts an unconfirmed result.
    let last = claim(&c, "w2", 1);
    let n = last.games[0].key.index + 1;
    let crashed = forge(&c, &played(&last.games[0]), 3, Termination::EngineCrashed("gone".into()), Some(0));
    assert!(matches!(&upload(&c, "w2", &last.holder, vec![crashed])[0], Verdict::Unconfirmed(_)));
    let e = super::accept_unconfirmed(&c.registry, &store, t, n, Some("w9")).unwrap_err().to_string();
    assert!(e.contains("has no unconfirmed result from worker w9"), "{e}");
    let (from, record) = super::accept_unconfirmed(&c.registry, &store, t, n, None).unwrap();
    assert_eq!((from.as_str(), record.result.termination.kind()), ("w2", "engine_crashed"));
    assert_eq!(store.games(Some(t)).unwrap().len(), 3);
    assert_eq!(store.awaiting_confirmation(t).unwrap(), 0);
    let e = super::accept_unconfirmed(&c.registry, &store, t, n, None).unwrap_err().to_string();
    assert!(e.contains("is stored already"), "{e}");
}

/// A worker whose refused games sit at the head of the queue claims
/// past them (it used to claim them again and again and play nothing).
#[test]
fn a_worker_claims_past_the_games_it_had_refused() {
    let (c, _store, _t) = coordinator("past-refused");
    let claimed = claim(&c, "w1", 3);
    let mut games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
    for g in &mut games {
        g.record.plies[0].mv ^= 0x5a5a;
    }
    let verdicts = upload(&c, "w1", &claimed.holder, games);
    assert!(verdicts.iter().all(|v| matches!(v, Verdict::Refused(_))));
    let refused: Vec<u32> = claimed.games.iter().map(|g| g.key.index).collect();
    let next = claim(&c, "w1", 2);
    assert_eq!(next.games.len(), 2, "two games past the refused ones");
    assert!(
        next.games.iter().all(|g| !refused.contains(&g.key.index)),
        "{:?}",
        next.games.iter().map(|g| g.key.index).collect::<Vec<_>>()
    );
}

#[test]
fn a_forged_upload_is_refused_kept_and_its_game_played_by_another_worker() {
    let (c, store, t) = coordinator("forged");
    let claimed = claim(&c, "w1", 12);
    let holder = claimed.holder.clone();
    let games: Vec<UploadedGame> = claimed.games.iter().map(|g| honest(&c, g)).collect();
    let mut forged = Vec::new();
    let mut why = Vec::new();
    // An illegal move: another move's id in the first ply.
    let mut g = games[0].clone();
    g.record.plies[0].mv ^= 0x5a5a;
    forged.push(g);
    why.push("move");
    // An impossible result: the loser recorded as the winner.
    let mut g = games[1].clone();
    g.record.result.outcome = match g.record.result.outcome {
        Outcome::Win(p) => Outcome::Win(1 - p),
        _ => Outcome::Win(0),
    };
    forged.push(g);
    why.push("the rules end the game here");
    // Another build of the plugin.
    let mut g = games[2].clone();
    g.pins.plugins.get_mut("race").unwrap().sha256 = "0".repeat(64);
    forged.push(g);
    why.push("not the pinned");
    // Players swapped.
    let mut g = games[3].clone();
    g.record.players.reverse();
    forged.push(g);
    why.push("but the job seats");
    // An adjudication the job has no rule for.
    let mut g = games[4].clone();
    g.record.result.termination = Termination::Adjudication("ply limit".into());
    g.record.result.outcome = Outcome::Draw;
    forged.push(g);
    why.push("which the job's rules do not give");
    // Another start.
    let mut g = games[5].clone();
    g.record.plies.remove(0);
    g.record.start_position = games[6].record.plies.first().map(|_| g.record.final_position.clone()).unwrap();
    forged.push(g);
    why.push("starts at");
    let verdicts = upload(&c, "w1", &holder, forged);
    for (v, why) in verdicts.iter().zip(&why) {
        assert!(matches!(v, Verdict::Refused(m) if m.contains(why)), "{v:?} should say '{why}'");
    }
    assert!(store.games(Some(t)).unwrap().is_empty(), "nothing forged is stored");
    assert_eq!(store.refusals(Some(t)).unwrap().len(), 6);
    // Another worker's claim: w2 uploads a game w1 holds.
    let theirs = upload(&c, "w2", "w2:host:1#0", vec![games[6].clone()]);
    assert!(matches!(&theirs[0], Verdict::Refused(m) if m.contains("is not claimed by w2:host:1#0")), "{theirs:?}");
    // w1 gives back what it has not uploaded; the refused games are
    // not handed to it again, but to w2.
    let rest = Held { holder: holder.clone(), games: claimed.games[6..].iter().map(|g| g.key).collect() };
    c.release("w1", &rest).unwrap();
    assert!(c.release("w2", &rest).is_err(), "w2 may not release w1's claims");
    let again = claim(&c, "w1", 12);
    assert_eq!(again.games.len(), 6, "the six games w1 did not play");
    assert!(again.games.iter().all(|g| g.key.index >= 6));
    let other = claim(&c, "w2", 12);
    assert_eq!(other.games.iter().map(|g| g.key.index).collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    let verdicts = upload(&c, "w2", &other.holder, other.games.iter().map(|g| honest(&c, g)).collect());
    assert!(verdicts.iter().all(|v| *v == Verdict::Stored), "{verdicts:?}");
}

#[test]
fn a_worker_whose_results_drift_from_the_others_is_held() {
    let players = [("a", "random:seed=1"), ("b", "random:seed=2")];
    let definition = definition("name = \"drift\"\nformat = \"round-robin\"\nrounds = 250", &players, &["race"]);
    let (c, store, t) = queued("drift", &definition);
    // A game the bad worker claimed before its results drifted.
    let held_claim = store.claim("bad:h#1", Duration::from_secs(60), Some(t), &[], 1).unwrap().remove(0);
    let pending = ClaimedGame::of_queued(held_claim.game).unwrap();
    // Three workers whose first movers score half; one whose never win
    // (results stored as a worker with store rights would).
    for (worker, n) in [("w1", 100), ("w2", 100), ("w3", 100), ("bad", 100)] {
        let claims = store.claim(&format!("{worker}:h#0"), Duration::from_secs(60), Some(t), &[], n).unwrap();
        let played: Vec<_> = claims
            .iter()
            .enumerate()
            .map(|(i, claim)| {
                let mut r = arbiter_testing::record(&[0, 1]);
                r.variant = "race".into();
                r.players = claim.game.seats.iter().map(|&s| players[s].0.to_string()).collect();
                let win = if worker == "bad" { 1 } else { (i % 2) as u32 };
                r.result.outcome = Outcome::Win(win);
                (claim, r, crate::queue::event_of(&claim.game))
            })
            .collect();
        let rows: Vec<_> = played.iter().map(|(c, r, e)| (*c, r, e)).collect();
        store.complete_claims(&rows, None).unwrap();
    }
    let bad = c.claim("bad", &ClaimRequest { slot: "h:9#0".into(), tournament: Some(t), skip: vec![], most: 1 });
    let why = bad.err().unwrap().to_string();
    assert!(why.contains("worker bad's results in tournament") && why.contains("are held"), "{why}");
    let fine = c.claim("w1", &ClaimRequest { slot: "h:1#0".into(), tournament: Some(t), skip: vec![], most: 1 });
    assert_eq!(fine.unwrap().games.len(), 1, "the others play on");
    // Its upload is verified, held back with its record, and not counted.
    let stored = store.games(Some(t)).unwrap().len();
    let verdicts = upload(&c, "bad", "bad:h#1", vec![honest(&c, &pending)]);
    assert!(matches!(&verdicts[0], Verdict::Refused(why) if why.contains("are held")), "{verdicts:?}");
    assert_eq!(store.games(Some(t)).unwrap().len(), stored, "a held result is not counted");
    let held = store.held_uploads("bad").unwrap();
    assert_eq!(held.len(), 1);
    assert_eq!(held[0].0.index, pending.key.index);
    assert!(held[0].1.as_ref().is_ok_and(|r| r.variant == "race"), "its record is kept for the admin");
    assert!(store.held_uploads("w1").unwrap().is_empty());
    let entry = store.queue_entry(t, pending.key.index).unwrap().unwrap();
    assert!(!entry.stored && entry.holder.is_none(), "given back to the queue for another worker");
}

#[test]
fn a_deterministic_game_is_played_again_by_another_worker_and_compared() {
    let players = [("a", "random:seed=1"), ("b", "random:seed=2")];
    let head = "name = \"checks\"\nformat = \"round-robin\"\nrounds = 2\ntc = \"inf\"";
    let (c, store, t) = queued("checks", &definition(head, &players, &["race"]));
    let c = c.with_double_check(1.0);
    let first = claim(&c, "w1", 4);
    assert_eq!(first.games.len(), 4);
    let games: Vec<UploadedGame> = first.games.iter().map(|g| honest(&c, g)).collect();
    assert!(upload(&c, "w1", &first.holder, games).iter().all(|v| *v == Verdict::Stored));
    assert!(store.check(t, 0).unwrap().is_some(), "every game is checked at fraction 1");
    assert_eq!(claim(&c, "w1", 4).games.len(), 0, "w1 never checks its own games");
    // w2 plays game 1 again, honestly: the two agree.
    let again = claim(&c, "w2", 4);
    assert_eq!(again.games.len(), 1, "a check at a time");
    let key = again.games[0].key;
    assert!(key.check && key.index == 0, "{key:?}");
    let verdicts = upload(&c, "w2", &again.holder, vec![honest(&c, &again.games[0])]);
    assert_eq!(verdicts, [Verdict::Agrees]);
    assert_eq!(store.check(t, 0).unwrap().unwrap().agreed, Some(true));
    assert_eq!(store.games(Some(t)).unwrap().len(), 4, "a check is not stored again");
    // w3 plays the next one with another seed: legal, but not the game.
    let other = claim(&c, "w3", 4);
    let mut job = other.games[0].job.clone();
    job.setup.seed += 1;
    let mut forged = honest(&c, &other.games[0]);
    forged.record = play_in_process(&c.registry, &job);
    let verdicts = upload(&c, "w3", &other.holder, vec![forged]);
    assert!(
        matches!(&verdicts[0], Verdict::Refused(m) if m.contains("differs from the one worker w1 played")),
        "{verdicts:?}"
    );
    assert_eq!(store.check(t, 1).unwrap().unwrap().agreed, Some(false));
    let against: Vec<String> = store.refusals(Some(t)).unwrap().into_iter().map(|r| r.worker).collect();
    assert_eq!(against, ["w1", "w3"], "a refusal kept against each of the two games");
}

/// A job of the race between `seats` (spec, time control), with a
/// 100 ms margin and no adjudication.
fn job(seats: &[(&str, &str)]) -> Job {
    let seat = |(i, (spec, tc)): (usize, &(&str, &str))| arbiter_play::referee::SeatSetup {
        name: ["a", "b"][i.min(1)].into(),
        spec: spec.to_string(),
        tc: arbiter_core::clock::TimeControl::parse(tc).unwrap(),
    };
    let setup = arbiter_play::referee::GameSetup {
        variant: "race".into(),
        options: Default::default(),
        position: None,
        seats: seats.iter().enumerate().map(seat).collect(),
        seed: 1,
        margin_ms: 100,
        max_plies: None,
        claim_draws: false,
        adjudication: Default::default(),
        pin_seats: false,
    };
    Job { setup, grace_ms: 1000, live: false, journal: None }
}

#[test]
fn only_games_that_replay_alike_are_checked() {
    use super::deterministic;
    assert!(deterministic(&job(&[("random", "10+0"), ("mcts:iterations=20", "inf")])));
    // Built-in players and sandboxed engines count their work, not the
    // machine's time: on a clock too.
    assert!(deterministic(&job(&[("random", "inf"), ("mcts:iterations=20", "10+0")])), "mcts on a clock");
    assert!(deterministic(&job(&[("random", "inf"), ("mcts:movetime=0.1", "inf")])));
    assert!(deterministic(&job(&[("random", "1+0.01"), ("uci:engine.wasm", "1+0.01")])), "a sandboxed engine");
    assert!(!deterministic(&job(&[("random", "inf"), ("uci:stockfish", "1+0.01")])), "an engine on a clock");
    assert!(deterministic(&job(&[("random", "inf"), ("uci:stockfish", "inf,nodes=1000")])));
    assert!(!deterministic(&job(&[("random", "inf"), ("uci:stockfish", "inf")])), "an engine on no limit");
}

#[test]
fn a_flag_falls_only_when_the_clock_was_spent_within_the_game_s_time() {
    let job = job(&[("random", "10+0"), ("random", "10+0")]);
    let mut r = arbiter_testing::record(&[0, 1, 0]);
    for (p, clock) in r.plies.iter_mut().zip([9_000, 9_500, 8_000]) {
        (p.used_us, p.clock_ms) = (1_000_000, Some(clock));
    }
    // Player 1 to move, 9.5 s on its clock after its last move.
    r.duration_ms = 3_000 + 9_500;
    assert_eq!(super::verify::check_flag(&job, &r, Seat::SECOND), Ok(()));
    r.duration_ms = 3_000 + 2_000;
    let e = super::verify::check_flag(&job, &r, Seat::SECOND).unwrap_err();
    assert!(e.contains("lost on time with 9500 ms on its clock") && e.contains("leave 2000 ms"), "{e}");
}

#[test]
fn the_last_game_stored_finishes_the_tournament_and_idle_workers_are_told() {
    let (c, store, t) = coordinator("finish");
    let claimed = claim(&c, "w1", 64);
    assert_eq!(claimed.games.len(), 12);
    let idle = c.claim("w2", &ClaimRequest { slot: "h:2#0".into(), tournament: Some(t), skip: vec![], most: 4 });
    assert_eq!(idle.unwrap().queue, QueueState::InFlight, "w1 plays the last games");
    let games = claimed.games.iter().map(|g| honest(&c, g)).collect();
    assert!(upload(&c, "w1", &claimed.holder, games).iter().all(|v| *v == Verdict::Stored));
    // The first slot to find the queue empty finishes the tournament.
    let done = c.claim("w2", &ClaimRequest { slot: "h:2#0".into(), tournament: Some(t), skip: vec![], most: 4 });
    assert_eq!(done.unwrap().queue, QueueState::Finished);
    assert!(store.tournament(Some(t)).unwrap().unwrap().finished_at.is_some());
    let bad = c.claim("w2", &ClaimRequest { slot: "a\nb".into(), tournament: None, skip: vec![], most: 1 });
    assert!(matches!(bad, Err(RequestError::BadRequest(_))));
}

/// A game whose players are all built in (on their virtual clocks) is
/// played again by the coordinator before it counts: an honest one counts
/// at once; a forged loss on time, or a clock the game never showed, is
/// refused with the ply where the game played again differs.
#[test]
fn a_reproducible_game_is_played_again_and_a_forged_one_is_refused_where_it_differs() {
    let players = [("a", "random:seed=1"), ("b", "mcts:iterations=5")];
    let head = "name = \"again\"\nformat = \"round-robin\"\nrounds = 3\ntc = \"10+0\"";
    let definition = definition(head, &players, &["race"]);
    let (c, store, t) = queued("again", &definition);
    let first = claim(&c, "w1", 3);
    assert_eq!(first.games.len(), 3);
    let honest_game = honest(&c, &first.games[0]);
    assert!(first.games[0].job.setup.reproducible());
    // A loss on time the game never had: the record cut after two plies.
    let mut flagged = forge(&c, &honest(&c, &first.games[1]), 2, Termination::TimeForfeit(Some(5)), Some(1));
    // Time enough for the flag as far as the record's own clocks tell.
    flagged.record.duration_ms = 60_000;
    let mut clocked = honest(&c, &first.games[2]);
    clocked.record.plies[1].used_us += 1_000;
    let verdicts = upload(&c, "w1", &first.holder, vec![honest_game, flagged, clocked]);
    assert_eq!(verdicts[0], Verdict::Stored, "{verdicts:?}");
    let refused = |v: &Verdict, says: &str| matches!(v, Verdict::Refused(why) if why.contains(says));
    assert!(refused(&verdicts[1], "played again here, the game differs"), "{verdicts:?}");
    assert!(refused(&verdicts[2], "at ply 2:"), "{verdicts:?}");
    assert_eq!(store.games(Some(t)).unwrap().len(), 1, "only the honest game is stored");
}
