//! What a record must be to match its queued job: the job's variant,
//! options, start, players and clocks, a flag that could fall, the
//! tournament's pinned builds; and which jobs replay alike on any machine.

use std::collections::BTreeMap;

use arbiter_api::Outcome;

use crate::wire::TournamentPins;
use arbiter_core::model::{GameRecord, Seat};
use arbiter_core::plugin::Registry;
use arbiter_play::referee::adjudication::Adjudged;
use arbiter_play::referee::Termination;
use arbiter_tournament::pins::PluginPin;
use arbiter_tournament::worker::Job;

/// Whether the builds a game was played with are the tournament's.
pub(super) fn check_pins(
    plugins: &BTreeMap<String, PluginPin>,
    engines: &BTreeMap<String, PluginPin>,
    job: &Job,
    played: &TournamentPins,
) -> std::result::Result<(), String> {
    if let Some(pin) = plugins.get(&job.setup.variant) {
        match played.plugins.get(&job.setup.variant) {
            Some(p) if p.same_build(pin) => {}
            Some(p) => return Err(format!("played with plugin {}, not the pinned {}", p.describe(), pin.describe())),
            None => return Err(format!("names no build of variant {}'s plugin", job.setup.variant)),
        }
    }
    for seat in &job.setup.seats {
        if let Some(pin) = engines.get(&seat.name) {
            match played.engines.get(&seat.name) {
                Some(p) if p.sha256 == pin.sha256 => {}
                _ => {
                    return Err(format!(
                        "player {}: not played with the pinned engine (sha256 {})",
                        seat.name, pin.sha256
                    ))
                }
            }
        }
    }
    Ok(())
}

/// Whether `record` is a game of `job`: its variant, options, start,
/// players and time controls, and an adjudication only by a rule the job
/// sets and whose conditions the record meets (the rules' own verdicts are
/// for [`arbiter_play::record::replay::verify_record`]).
pub fn check_against_job(registry: &Registry, job: &Job, record: &GameRecord) -> std::result::Result<(), String> {
    if record.variant != job.setup.variant {
        return Err(format!("variant {}, but the job is {}", record.variant, job.setup.variant));
    }
    if record.options != job.setup.options {
        return Err("the variant options are not the job's".into());
    }
    let names: Vec<&str> = job.setup.seats.iter().map(|s| s.name.as_str()).collect();
    if record.players.iter().map(String::as_str).ne(names.iter().copied()) {
        return Err(format!("players {:?}, but the job seats {names:?}", record.players));
    }
    if record.time_controls.iter().ne(job.setup.seats.iter().map(|s| &s.tc)) {
        return Err("the time controls are not the job's".into());
    }
    let variant = registry.get(&job.setup.variant).map_err(|e| e.to_string())?;
    let start = match &job.setup.position {
        None => variant.new_game(&job.setup.options),
        Some(p) => variant.from_position(p, &job.setup.options),
    }
    .map_err(|e| format!("the job's start: {e}"))?
    .position_text();
    if record.start_position != start || record.standard_start != job.setup.position.is_none() {
        return Err(format!("starts at '{}', but the job starts at '{start}'", record.start_position));
    }
    if let Termination::Adjudication(reason) = &record.result.termination {
        let plies = record.plies.len() as u32;
        let judged = job.setup.adjudication.judge(&record.plies);
        let by_score = match judged {
            Some(Adjudged::Resign { loser, reason: r }) => {
                r == *reason && record.result.outcome == loser.opponent().wins()
            }
            Some(Adjudged::Draw(r)) => r == *reason && record.result.outcome == Outcome::Draw,
            None => false,
        };
        let by_plugin = (job.setup.adjudication.plugin || job.setup.adjudication.tablebases.is_some())
            && reason.ends_with("(the plugin's adjudication)");
        let by_length =
            reason == "ply limit" && job.setup.max_plies == Some(plies) && record.result.outcome == Outcome::Draw;
        let cap = job.setup.seats.iter().filter_map(|s| s.tc.cap_ms).min();
        let used_ms = record.plies.iter().map(|p| p.used_us).sum::<u64>() / 1000;
        let by_time =
            reason == "game time cap" && cap.is_some_and(|c| used_ms >= c) && record.result.outcome == Outcome::Draw;
        if !(by_score || by_plugin || by_length || by_time) {
            return Err(format!("adjudicated '{reason}', which the job's rules do not give here"));
        }
    }
    if let (Termination::TimeForfeit(_), Some(winner)) =
        (&record.result.termination, Seat::winner(record.result.outcome))
    {
        check_flag(job, record, winner.opponent())?;
    }
    // A game the job would have adjudicated earlier was not played by it.
    let through = record.plies.len().saturating_sub(1);
    if let Some(m) = job.setup.max_plies.filter(|&m| (m as usize) <= through) {
        return Err(format!("{} plies, past the job's limit of {m}", record.plies.len()));
    }
    if let Some(n) = (1..=through).find(|&n| job.setup.adjudication.judge(&record.plies[..n]).is_some()) {
        return Err(format!("played on after ply {n}, where the job's adjudication ends the game"));
    }
    Ok(())
}

/// What two plays of one deterministic game must share: the moves and the
/// result, as a sha256.
pub(super) fn digest(record: &GameRecord) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    for ply in &record.plies {
        hash.update(ply.mv.to_le_bytes());
    }
    hash.update(format!("{:?} {}", record.result.outcome, record.result.termination.kind()));
    format!("{:x}", hash.finalize())
}

/// Whether every seat of `job` plays the same game again given the same
/// seed: a seeded built-in player or a sandboxed engine (on their virtual
/// clocks), or a native engine at a node limit on no clock. A native engine
/// that reads a clock may play otherwise on another machine.
pub fn deterministic(job: &Job) -> bool {
    job.setup.seats.iter().all(|seat| {
        let untimed = matches!(seat.tc.limit, arbiter_core::clock::Limit::Infinite);
        match arbiter_play::players::PlayerSpec::parse(&seat.spec) {
            // Each kind says whether it repeats itself; an engine does at a
            // node limit, and nothing that reads a clock does.
            Ok(spec) if spec.repeats_itself(!untimed) => true,
            Ok(spec) if spec.is_engine() => untimed && seat.tc.nodes.is_some(),
            Ok(_) => false,
            Err(_) => false,
        }
    })
}

/// Whether the flag of `loser` can have fallen in `record`: the time its
/// clock showed after its last move (or at the start) must fit in the
/// game's wall time not spent on the recorded moves, which is what its
/// last, unfinished move took. (A pooled clock, which the opponent's moves
/// fill, is checked by the rules' replay only.)
pub(super) fn check_flag(job: &Job, record: &GameRecord, loser: Seat) -> std::result::Result<(), String> {
    let Some(seat) = job.setup.seats.get(loser.index()) else { return Ok(()) };
    let left = match &seat.tc.limit {
        arbiter_core::clock::Limit::PerMove(ms) => *ms,
        arbiter_core::clock::Limit::Periods(_) => {
            let last = record.plies.iter().rev().find(|p| p.player == loser).and_then(|p| p.clock_ms);
            match last.or_else(|| arbiter_core::clock::Clock::new(&seat.tc).remaining_ms()) {
                Some(ms) => ms,
                None => return Ok(()),
            }
        }
        _ => return Ok(()),
    };
    let recorded_ms = record.plies.iter().map(|p| p.used_us).sum::<u64>() / 1000;
    let last_move_ms = record.duration_ms.saturating_sub(recorded_ms);
    if left > last_move_ms + job.setup.margin_ms {
        return Err(format!(
            "player {loser} lost on time with {left} ms on its clock, but the game's {} ms leave {last_move_ms} ms for \
             its last move",
            record.duration_ms
        ));
    }
    Ok(())
}
