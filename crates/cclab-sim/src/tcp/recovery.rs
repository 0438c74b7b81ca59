//! The three loss recoveries a flow can use. The sender (`sender.rs`) holds
//! the state machine; this names the variants and what distinguishes them.
//!
//! - `Reno` (RFC 5681, "classic" fast recovery as ns-2's `Agent/TCP/Reno`):
//!   three duplicate ACKs retransmit `snd_una` and inflate the window; the
//!   first new ACK ends recovery and deflates to `ssthresh`. As with ns-2's
//!   `bugfix_` (its default), three more duplicate ACKs do not start another
//!   fast retransmit until everything sent before the first one is
//!   acknowledged, so several losses in one window end in a retransmission
//!   timeout rather than in repeated halvings.
//! - `NewReno` (RFC 6582): recovery lasts until everything outstanding at its
//!   start is acknowledged; each partial ACK retransmits the next hole and
//!   deflates the window by the amount acknowledged (step 3 of section 3.2).
//!   The retransmission timer is reset on the first partial ACK only (the
//!   RFC's recommended "Impatient" variant); on a full ACK, cwnd = ssthresh
//!   (option 2 of step 3, as ns-2 does).
//! - `Sack` (RFC 6675): the receiver reports up to three SACK blocks; in
//!   recovery the sender keeps `pipe < cwnd` and sends first the holes that
//!   `IsLost` marks, then new data (NextSeg rules 1 and 2; rules 3 and 4, the
//!   rescue retransmissions, are not implemented, as in ns-2's `Sack1`).

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Recovery {
    Reno,
    NewReno,
    Sack,
}

impl Recovery {
    pub const NAMES: &'static str = "reno, newreno, sack";

    pub fn parse(s: &str) -> Option<Recovery> {
        match s {
            "reno" => Some(Recovery::Reno),
            "newreno" => Some(Recovery::NewReno),
            "sack" => Some(Recovery::Sack),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
        }
    }
}
