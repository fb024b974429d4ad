//! Statistics of results: a pair's score with Elo, error and LOS ([`score`]),
//! maximum-likelihood ratings for a whole field ([`ratings`]) and for a
//! rating list over many tournaments ([`rating_list`]), pentanomial
//! counts of paired games and the normalized-Elo GSPRT ([`sprt`]), and the
//! head-to-head report in fastchess's shape ([`report`]), and each queue
//! worker's residual against the others ([`residuals`]).

pub mod rating_list;
pub mod ratings;
pub mod report;
pub mod residuals;
pub mod score;
pub mod sprt;
pub mod spsa;

pub use score::{elo_from_score, Score};
