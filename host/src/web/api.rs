//! Read-only JSON over the store: variants, tournaments with standings,
//! the game list, one game replayed move by move for a viewer, its record.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;
use serde_json::{json, Value};

use super::{blocking, ApiError, Reveal, Shared};
use crate::clock::{Clock, TimeControl};
use crate::record::store::{GameFilter, StoredGame};
use crate::tournament::driver::TournamentView;
use crate::tournament::standings::{self, GameResultRow};
use crate::Viewer;

/// `GET /api/variants`: every installed variant's card.
pub(super) async fn variants(State(app): State<Shared>) -> Json<Value> {
    let cards: Vec<Value> = app
        .registry
        .variants()
        .map(|v| {
            let info = v.info();
            json!({
                "id": info.id,
                "name": info.name,
                "players": info.players,
                "board": info.board,
                "notation": info.notation,
                "hidden": info.capabilities.hidden_information,
                "default_time_control": info.default_time_control,
                "options": info.options,
            })
        })
        .collect();
    Json(Value::from(cards))
}

/// `GET /api/tournaments`: every stored tournament, newest first.
pub(super) async fn tournaments(State(app): State<Shared>) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let list = app.store.tournament_list()?;
        Ok(Json(
            list.into_iter()
                .map(|(t, games)| json!({"id": t.id, "name": t.name, "finished": t.finished_at.is_some(), "games": games}))
                .collect(),
        ))
    })
    .await
}

/// `GET /api/tournaments/{id}`: progress, standings overall and per variant,
/// crosstables and Elo.
pub(super) async fn tournament(State(app): State<Shared>, Path(id): Path<i64>) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let stored =
            app.store.tournament(Some(id))?.ok_or_else(|| ApiError::not_found(format!("no tournament {id}")))?;
        let t = TournamentView::load(&app.store, Some(id))?;
        let (games, byes, expected) = t.results_and_expected(&app.store)?;
        let names = t.names();
        let mut tables = vec![table_json("overall", &names, &games.iter().collect::<Vec<_>>(), &byes)];
        if t.definition.variants.len() > 1 {
            for v in &t.definition.variants {
                let of_v: Vec<&GameResultRow> = games.iter().filter(|g| &g.variant == v).collect();
                tables.push(table_json(v, &names, &of_v, &vec![0.0; names.len()]));
            }
        }
        let config = &t.definition.config;
        Ok(Json(json!({
            "id": id,
            "name": stored.name,
            "format": config.format,
            "variants": t.definition.variants,
            "players": names,
            "finished": stored.finished_at.is_some(),
            "played": games.len(),
            "expected": expected.max(games.len()),
            "tables": tables,
        })))
    })
    .await
}

/// `GET /api/tournaments/{id}/live`: the games in progress as spectators
/// see them (the tournament's runner stores only that view), and how many
/// games are stored (pages refetch the standings when it changes).
pub(super) async fn tournament_live(State(app): State<Shared>, Path(id): Path<i64>) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let filter = GameFilter { tournament: Some(id), ..GameFilter::default() };
        let (_, played) = app.store.game_list(&filter, 1, 0)?;
        Ok(Json(json!({ "played": played, "games": app.store.live_games(id)? })))
    })
    .await
}

fn table_json(title: &str, names: &[String], games: &[&GameResultRow], byes: &[f64]) -> Value {
    let t = standings::table(names.len(), games, byes);
    let rows: Vec<Value> = t
        .rows
        .iter()
        .enumerate()
        .map(|(rank, r)| {
            json!({
                "rank": rank + 1,
                "entrant": r.entrant,
                "name": names[r.entrant],
                "games": r.games,
                "points": r.points(),
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
                "elo": r.elo,
                "error": r.error,
            })
        })
        .collect();
    let cross: Vec<Vec<Value>> = t
        .cross
        .iter()
        .map(|row| row.iter().map(|&(p, g)| if g == 0 { Value::Null } else { json!([p, g]) }).collect())
        .collect();
    json!({ "title": title, "rows": rows, "cross": cross, "unfinished": t.unfinished })
}

/// Query of `GET /api/games`: the filters (see [`GameFilter`]) and the page.
#[derive(serde::Deserialize)]
pub(super) struct GamesQuery {
    variant: Option<String>,
    player: Option<String>,
    result: Option<String>,
    termination: Option<String>,
    tournament: Option<i64>,
    limit: Option<u32>,
    offset: Option<u32>,
}

/// `GET /api/games`: a page of games, newest first, filtered.
pub(super) async fn games(State(app): State<Shared>, Query(q): Query<GamesQuery>) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let given = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        let filter = GameFilter {
            variant: given(q.variant),
            player: given(q.player),
            result: given(q.result),
            termination: given(q.termination),
            tournament: q.tournament,
        };
        let limit = q.limit.unwrap_or(50).clamp(1, 500);
        let (games, total) = app.store.game_list(&filter, limit, q.offset.unwrap_or(0))?;
        Ok(Json(json!({ "total": total, "games": games })))
    })
    .await
}

/// Query of `GET /api/games/{id}`.
#[derive(serde::Deserialize)]
pub(super) struct GameQuery {
    /// `spectator` (default) or `referee`.
    view: Option<String>,
}

/// Whether the full record of `game` may be shown, and the error if not.
fn may_reveal(app: &Shared, hidden: bool) -> Result<(), ApiError> {
    if hidden && app.config.reveal == Reveal::Never {
        Err(ApiError::forbidden("this server does not reveal hidden-information records (--reveal never)"))
    } else {
        Ok(())
    }
}

fn stored_game(app: &Shared, id: i64) -> Result<StoredGame, ApiError> {
    app.store.game(id)?.ok_or_else(|| ApiError::not_found(format!("no game {id}")))
}

/// `GET /api/games/{id}`: the game replayed through its plugin, one frame
/// per ply as the chosen viewer saw it: the move's text, each player's
/// clock after it, and the board.
pub(super) async fn game(
    State(app): State<Shared>,
    Path(id): Path<i64>,
    Query(q): Query<GameQuery>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let g = stored_game(&app, id)?;
        let variant = app.registry.get(&g.summary.variant)?;
        let info = variant.info();
        let hidden = info.capabilities.hidden_information;
        let viewer = match q.view.as_deref() {
            None | Some("spectator") => Viewer::Spectator,
            Some("referee") => {
                may_reveal(&app, hidden)?;
                Viewer::Referee
            }
            Some(other) => return Err(ApiError::bad_request(format!("view '{other}' must be spectator or referee"))),
        };
        let options = g.json["options"].as_object().cloned().unwrap_or_default();
        let start = g.json["start_position"].as_str().unwrap_or_default();
        let mut game = variant.from_position(start, &options)?;
        // Each clock as it started, then as the record has it after each move.
        let tcs = g.json["time_controls"].as_array().cloned().unwrap_or_default();
        let start_clock = |tc: &Value| {
            let tc = TimeControl::parse(tc.as_str()?).ok()?;
            Clock::new(&tc).remaining_ms()
        };
        let mut clocks: Vec<Option<u64>> = tcs.iter().map(start_clock).collect();
        clocks.resize(g.summary.players.len(), None);
        let mut frames = vec![json!({ "ply": 0, "observation": game.observe(viewer)?.view, "clocks": clocks })];
        for (i, m) in g.json["moves"].as_array().into_iter().flatten().enumerate() {
            let mv =
                m["id"].as_u64().ok_or_else(|| ApiError::from(format!("game {id}: ply {} has no move id", i + 1)))?;
            let text = game.move_text(mv, viewer)?;
            game.apply(mv)?;
            let mover = m["player"].as_u64().unwrap_or(0) as usize;
            if let Some(c) = clocks.get_mut(mover) {
                *c = m["clock_ms"].as_u64();
            }
            frames.push(json!({
                "ply": i + 1,
                "mover": mover,
                "text": text,
                "used_ms": m["used_us"].as_u64().map(|u| u / 1000),
                "clocks": clocks,
                "observation": game.observe(viewer)?.view,
            }));
        }
        Ok(Json(json!({
            "id": id,
            "variant": g.summary.variant,
            "variant_name": info.name,
            "board": info.board,
            "sides": info.players,
            "players": g.summary.players,
            "result": g.summary.result,
            "termination": g.summary.termination.to_string(),
            "event": g.json["event"],
            "round": g.json["round"],
            "time_controls": g.json["time_controls"],
            "tournament": g.slot.as_ref().map(|s| s.id),
            "hidden": hidden,
            "viewer": viewer.to_string(),
            "can_reveal": hidden && app.config.reveal == Reveal::Finished,
            "frames": frames,
        })))
    })
    .await
}

/// `GET /api/games/{id}/record`: the stored PGN (PDN for draughts), as a download.
pub(super) async fn record(State(app): State<Shared>, Path(id): Path<i64>) -> Result<impl IntoResponse, ApiError> {
    blocking(move || {
        let g = stored_game(&app, id)?;
        let hidden =
            app.registry.get(&g.summary.variant).map(|v| v.info().capabilities.hidden_information).unwrap_or(true);
        may_reveal(&app, hidden)?;
        let ext = if g.pgn.contains("[GameType ") { "pdn" } else { "pgn" };
        let disposition = format!("attachment; filename=\"arbiter-game-{id}.{ext}\"");
        Ok((
            [(header::CONTENT_TYPE, "application/x-chess-pgn".to_string()), (header::CONTENT_DISPOSITION, disposition)],
            g.pgn,
        ))
    })
    .await
}
