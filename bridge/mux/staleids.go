package mux

import (
	"context"
	"time"

	"github.com/rs/zerolog"

	"github.com/ddmbridge/ddmbridge/jdwp"
)

// Stale ids after a reset. HotSpot's agent numbers the ids it hands out
// from 1, and starts again from 1 when its debugger leaves. Directly, the
// next debugger's stale ids (learnt by one before it) answer INVALID_OBJECT
// until the new debugger has been handed that many ids itself. Through the
// monitor, the monitor's own requests on the reset agent (thread polls for
// the control API) take ids too, so a stale id could name one of those
// objects: an answer a fresh agent never gives, and HotSpot's agent aborts
// on some class commands given an object of another kind
// (JVMTI_ERROR_INVALID_CLASS).
//
// So the reset asks nothing that hands out ids (the monitor's
// identifyPlain), and when the control API watches the VM's threads (the
// polls will take ids), the monitor first moves the reset agent's counter
// past every id the old agent handed out. That takes a round of AllClasses per loaded class
// count of ids to pass, so it is done only then, and within maxIDPass.

// IDHighWater asks the agent behind conn for one new id (an empty
// String's) within timeout: every id the agent handed out so far is below
// it. 0 when it cannot tell (a connection gone). Not for a DDM VM, which
// must be sent nothing but DDM before a debugger attaches.
func IDHighWater(conn *jdwp.Conn, timeout time.Duration, log zerolog.Logger) uint64 {
	if conn.Err() != nil {
		return 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	id, err := conn.CreateString(ctx, "")
	if err != nil {
		log.Debug().Err(err).Msg("cannot tell the agent's newest id before resetting it")
		return 0
	}
	return uint64(id)
}

// maxIDPass bounds PassIDs.
const maxIDPass = 5 * time.Second

// PassIDs moves the id counter of the reset agent behind conn past high,
// before anyone uses the agent (a plain JDWP VM's: see IDHighWater): it
// has the loaded classes handed out (VirtualMachine.AllClasses, one id
// each) and given back (DisposeObjects) until an id above high came, so
// that no id the old agent handed out names anything on this one.
func PassIDs(conn *jdwp.Conn, high uint64, log zerolog.Logger) {
	if high == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxIDPass)
	defer cancel()
	rounds := 0
	for ctx.Err() == nil {
		rounds++
		classes, err := conn.AllClasses(ctx)
		if err != nil || len(classes) == 0 {
			log.Debug().Err(err).Msg("cannot move the reset agent's ids on")
			return
		}
		var top uint64
		objs := make([]jdwp.ObjectRefCount, len(classes))
		for i, c := range classes {
			objs[i] = jdwp.ObjectRefCount{Object: jdwp.ObjectID(c.ID), Count: 1}
			top = max(top, uint64(c.ID))
		}
		if err := conn.DisposeObjects(ctx, objs); err != nil {
			log.Debug().Err(err).Msg("cannot move the reset agent's ids on")
			return
		}
		if top > high {
			log.Debug().Uint64("past", high).Int("rounds", rounds).Msg("the reset agent's ids start past the old agent's")
			return
		}
	}
	log.Info().Uint64("past", high).Int("rounds", rounds).
		Msg("the reset agent's ids could not be moved past the old agent's in time: an id of an earlier debugger may name an object of the monitor's own")
}
