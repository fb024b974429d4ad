//! The kit's side of every call, in plain Rust: the checks and guards a
//! variant's code runs under, whichever interface carries the call (the
//! native root module or the WebAssembly exports). A panic faults the state;
//! moves are checked for legality before the author's `play` sees them;
//! options are checked against the info card and defaults filled in; the
//! viewer and the player to move of an observation are filled in by the kit.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Map, Value};

use super::{guard, resolve_options, Game, Variant};
use crate::schema::VariantInfo;
use crate::{Error, ErrorKind, Outcome, Status, Viewer};

/// A [`Game`] under the kit's guard. After a panic the state is faulted:
/// every later call is refused.
#[derive(Debug)]
pub(crate) struct GameAdapter<G> {
    /// `None` once a clone panicked: nothing is left to play.
    game: Option<G>,
    faulted: AtomicBool,
    /// Whether `sample_world` may be called: not for a hidden-information
    /// variant that does not declare it (the default would hand out the truth).
    samples: bool,
}

/// The error of a move id that is not legal in the position.
fn not_legal(mv: u64) -> Error {
    Error::illegal_move(format!("move id {mv:#x} is not legal in this position"))
}

impl<G: Game> GameAdapter<G> {
    pub(crate) fn new(game: G, samples: bool) -> Self {
        GameAdapter { game: Some(game), faulted: AtomicBool::new(false), samples }
    }

    /// The game, or the error every call on a faulted state gets.
    fn live(&self) -> Result<&G, Error> {
        match &self.game {
            Some(g) if !self.faulted.load(Ordering::Relaxed) => Ok(g),
            _ => Err(Error::new(ErrorKind::Faulted, "the game state faulted after an earlier panic in the plugin")),
        }
    }

    /// Runs `f` on the game under a guard; a panic faults the state.
    fn call<T>(&self, name: &str, f: impl FnOnce(&G) -> T) -> Result<T, Error> {
        let g = self.live()?;
        guard(name, || f(g)).inspect_err(|_| self.faulted.store(true, Ordering::Relaxed))
    }

    fn call_mut<T>(&mut self, name: &str, f: impl FnOnce(&mut G) -> T) -> Result<T, Error> {
        self.live()?;
        let g = self.game.as_mut().expect("checked by live()");
        let r = guard(name, || f(g));
        if r.is_err() {
            self.faulted.store(true, Ordering::Relaxed);
        }
        r
    }

    pub(crate) fn to_move(&self) -> u32 {
        self.call("to_move", |g| g.to_move()).unwrap_or(0)
    }

    pub(crate) fn status(&self) -> Status {
        self.call("status", |g| g.status()).unwrap_or(Status {
            outcome: Outcome::Faulted,
            reason: "plugin faulted",
            claimable: "",
        })
    }

    /// Clears `out` and fills it with the legal moves.
    pub(crate) fn legal_moves(&self, out: &mut Vec<u64>) -> Result<(), Error> {
        out.clear();
        self.call("legal_moves", |g| g.legal_moves(out))
    }

    pub(crate) fn apply(&mut self, mv: u64) -> Result<(), Error> {
        self.call_mut("apply", |g| {
            if g.is_legal(mv) {
                g.play(mv);
                Ok(())
            } else {
                Err(not_legal(mv))
            }
        })?
    }

    /// Overwrites this state with `other`, reusing allocations; a faulted
    /// state copied over is whole again.
    pub(crate) fn copy_from(&mut self, other: &Self) -> Result<(), Error> {
        let r = match (&mut self.game, other.live()) {
            (Some(mine), Ok(theirs)) => guard("copy_from", || mine.clone_from(theirs)),
            (_, Err(e)) => Err(e),
            (None, Ok(_)) => Err(Error::new(ErrorKind::Faulted, "copy_from into a faulted state")),
        };
        if r.is_ok() {
            self.faulted.store(false, Ordering::Relaxed);
        }
        r
    }

    pub(crate) fn perft(&self, depth: u32) -> Result<u64, Error> {
        self.call("perft", |g| g.perft(depth))
    }

    pub(crate) fn move_text(&self, mv: u64, viewer: Viewer) -> Result<String, Error> {
        self.call("move_to_text", |g| if g.is_legal(mv) { Ok(g.move_text(mv, viewer)) } else { Err(not_legal(mv)) })?
    }

    pub(crate) fn parse_move(&self, text: &str) -> Result<u64, Error> {
        self.call("parse_move", |g| g.parse_move(text))?
    }

    pub(crate) fn position_text(&self) -> String {
        self.call("position_text", |g| g.position_text()).unwrap_or_default()
    }

    /// What `viewer` may know: the text and the schema's JSON. The kit names
    /// the viewer and the player to move itself: an author cannot get them
    /// wrong.
    pub(crate) fn observe(&self, viewer: Viewer) -> Result<(String, String), Error> {
        let o = self.call("observe", |g| {
            let mut o = g.observe(viewer);
            o.view.viewer = crate::schema::ObservationView::viewer_name(viewer);
            o.view.to_move = g.to_move();
            o
        })?;
        let json = serde_json::to_string(&o.view)
            .map_err(|e| Error::unsupported(format!("observation is not serialisable: {e}")))?;
        Ok((o.text, json))
    }

    pub(crate) fn sample_world(&self, viewer: Viewer, seed: u64) -> Result<Self, Error> {
        if !self.samples {
            return Err(Error::unsupported(
                "sample_world: this variant hides information and does not declare capabilities.sample_world",
            ));
        }
        self.call("sample_world", |g| g.sample_world(viewer, seed)).map(|g| GameAdapter::new(g, true))
    }

    pub(crate) fn evaluate(&self, player: u32) -> Option<f64> {
        self.call("evaluate", |g| g.evaluate(player)).ok().flatten()
    }

    pub(crate) fn can_win(&self, player: u32) -> bool {
        self.call("can_win", |g| g.can_win(player)).unwrap_or(true)
    }

    /// A JSON call: the kit's own (`move_cells`, `is_pass`) or the variant's.
    pub(crate) fn call_json(&mut self, method: &str, args_json: &str) -> Result<String, Error> {
        // Asked every ply of an engine's game: read and answered without a
        // JSON value, by the variant's `uci_move` if it has one.
        if method == "uci_move" {
            if let Some(id) = crate::move_call::read_move_args(args_json) {
                let text = self.call("uci_move", |g| g.is_legal(id).then(|| g.uci_move(id)))?;
                match text {
                    None => return Err(not_legal(id)),
                    Some(Some(text)) => return Ok(crate::move_call::string_json(&text)),
                    Some(None) => {}
                }
            }
        }
        let args: Value =
            serde_json::from_str(args_json).map_err(|e| Error::bad_options(format!("call_json arguments: {e}")))?;
        let out = match method {
            "move_cells" => self.call("move_cells", |g| move_cells_json(g, &args))??,
            // `is_pass`: {"move": id} gives whether the move is a pass (see [`Game::is_pass`]).
            "is_pass" => {
                let pass = self.call("is_pass", |g| args["move"].as_u64().map(|m| g.is_pass(m)))?;
                Value::Bool(pass.ok_or_else(|| Error::bad_options("is_pass: {\"move\": id} expected"))?)
            }
            _ => self.call_mut("call_json", |g| g.call_json(method, &args))??,
        };
        Ok(out.to_string())
    }
}

impl<G: Game> Clone for GameAdapter<G> {
    fn clone(&self) -> Self {
        // Neither interface's clone can return an error: a panicking clone
        // yields a faulted state instead of aborting the host.
        let game = self.game.as_ref().and_then(|g| guard("clone", || g.clone()).ok());
        let faulted = game.is_none() || self.faulted.load(Ordering::Relaxed);
        GameAdapter { game, faulted: AtomicBool::new(faulted), samples: self.samples }
    }
}

/// The `move_cells` call: `{"moves": [id...]}` gives, for each id, its cells
/// (see [`Game::move_cells`]) or `null`.
fn move_cells_json<G: Game>(g: &G, args: &Value) -> Result<Value, Error> {
    let ids =
        args["moves"].as_array().ok_or_else(|| Error::bad_options("move_cells: expected {\"moves\": [id...]}"))?;
    Ok(ids.iter().map(|id| id.as_u64().and_then(|mv| g.move_cells(mv)).map_or(Value::Null, Value::from)).collect())
}

/// A [`Variant`] under the kit's guard: options checked against the info
/// card and defaults filled in before the author's code sees them.
pub(crate) struct VariantAdapter<V> {
    variant: V,
    info: VariantInfo,
    info_json: String,
}

impl<V: Variant> VariantAdapter<V> {
    pub(crate) fn new(variant: V) -> Result<Self, Error> {
        let info = guard("info", || variant.info())?;
        let sets = guard("piece_sets", || variant.piece_sets())?;
        // The info card, with the piece sets as one more key (older hosts
        // ignore it).
        let mut card = serde_json::to_value(&info)
            .map_err(|e| Error::unsupported(format!("variant info is not serialisable: {e}")))?;
        if !sets.is_empty() {
            card["piece_sets"] = serde_json::to_value(&sets)
                .map_err(|e| Error::unsupported(format!("piece sets are not serialisable: {e}")))?;
        }
        let info_json = card.to_string();
        Ok(VariantAdapter { variant, info, info_json })
    }

    /// The variant's id.
    pub(crate) fn id(&self) -> &str {
        &self.info.id
    }

    /// The info card (with its piece sets) as JSON.
    pub(crate) fn info_json(&self) -> &str {
        &self.info_json
    }

    /// Whether its games may sample worlds (see [`Game::sample_world`]).
    fn samples(&self) -> bool {
        let caps = &self.info.capabilities;
        !caps.hidden_information || caps.sample_world
    }

    /// Parses `json`, refuses unknown or ill-typed options, fills defaults.
    fn options(&self, json: &str) -> Result<Map<String, Value>, Error> {
        let given: Map<String, Value> = if json.trim().is_empty() {
            Map::new()
        } else {
            serde_json::from_str(json).map_err(|e| Error::bad_options(format!("options must be a JSON object: {e}")))?
        };
        resolve_options(&self.info, given)
    }

    pub(crate) fn new_game(&self, options_json: &str) -> Result<GameAdapter<V::Game>, Error> {
        let opts = self.options(options_json)?;
        let game = guard("new_game", || self.variant.new_game(&opts))??;
        Ok(GameAdapter::new(game, self.samples()))
    }

    #[allow(clippy::wrong_self_convention)]
    pub(crate) fn from_position(&self, text: &str, options_json: &str) -> Result<GameAdapter<V::Game>, Error> {
        let opts = self.options(options_json)?;
        let game = guard("from_position", || self.variant.from_position(text, &opts))??;
        Ok(GameAdapter::new(game, self.samples()))
    }
}
