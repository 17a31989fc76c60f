// Copyright 2021 FerretDB Inc.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package fsql

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// Group commit (Shared World). SQLite takes one writer at a time: write
// transactions from many connections queue on its lock (sleeping in the
// busy handler), each commit writes its pages to the WAL, and every commit
// empties the page cache of each other connection, which then reads its
// pages again. One writer per database that commits the transactions
// waiting at that moment together does the same work with one commit per
// group, on one connection whose cache stays warm. Each transaction of a
// group runs in its own savepoint: one that fails is rolled back alone and
// reports its own error, the others commit.

// maxGroup bounds the transactions of one commit, so that the first of a
// group does not wait for an unbounded queue behind it.
const maxGroup = 128

// A work's state: queued, then taken by the writer or given up by its
// caller, whichever comes first.
const (
	workQueued int32 = iota
	workTaken
	workAbandoned
)

type groupWork struct {
	f     func(*Tx) error
	state atomic.Int32
	done  chan error
}

type groupCommit struct {
	// writeDB is the writer's own handle on the file, of one connection
	// that begins its transactions IMMEDIATE: it never waits for a
	// connection that readers hold, and a group waits for another writer
	// (FerretDB's DDL, another process on the file) once, at its
	// start, not at each work's first write.
	writeDB *sql.DB
	l       *slog.Logger
	queue   chan *groupWork
	stop    chan struct{}
	ended   chan struct{}
	once    sync.Once
}

// GroupCommits makes InTransaction hand its transactions to one writer
// that commits those waiting together, on writeDB: a handle of the same
// file limited to one connection, opened with _txlock=immediate. The DB
// closes it with its own.
func (db *DB) GroupCommits(writeDB *sql.DB) {
	g := &groupCommit{
		writeDB: writeDB,
		l:       db.l,
		queue:   make(chan *groupWork, maxGroup),
		stop:    make(chan struct{}),
		ended:   make(chan struct{}),
	}
	db.group = g
	go g.run()
}

// close stops the writer once it has committed what it took.
func (g *groupCommit) close() error {
	g.once.Do(func() { close(g.stop) })
	<-g.ended
	return g.writeDB.Close()
}

var errClosing = errors.New("database is closing")

// do runs f in the next group and returns its outcome. A caller whose
// context ends while its work is still queued gives it up; once the writer
// took it, the work runs to its commit whatever the context, and the caller
// learns the real outcome, not a cancellation that raced it.
func (g *groupCommit) do(ctx context.Context, f func(*Tx) error) error {
	w := &groupWork{f: f, done: make(chan error, 1)}
	select {
	case g.queue <- w:
	case <-ctx.Done():
		return lazyerrors.Error(ctx.Err())
	case <-g.stop:
		return lazyerrors.Error(errClosing)
	}
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		if w.state.CompareAndSwap(workQueued, workAbandoned) {
			return lazyerrors.Error(ctx.Err())
		}
		return <-w.done
	case <-g.ended:
		if w.state.CompareAndSwap(workQueued, workAbandoned) {
			return lazyerrors.Error(errClosing)
		}
		return <-w.done
	}
}

func (g *groupCommit) run() {
	defer close(g.ended)
	for {
		var first *groupWork
		select {
		case first = <-g.queue:
		case <-g.stop:
			g.refuseQueued()
			return
		}
		batch := []*groupWork{first}
	more:
		for len(batch) < maxGroup {
			select {
			case w := <-g.queue:
				batch = append(batch, w)
			default:
				break more
			}
		}
		g.commit(batch)
	}
}

// refuseQueued answers the work still queued at the stop.
func (g *groupCommit) refuseQueued() {
	for {
		select {
		case w := <-g.queue:
			if w.state.CompareAndSwap(workQueued, workTaken) {
				w.done <- lazyerrors.Error(errClosing)
			}
		default:
			return
		}
	}
}

// commit runs the works of batch their callers still wait for in one
// transaction, and answers each.
func (g *groupCommit) commit(batch []*groupWork) {
	live := batch[:0]
	for _, w := range batch {
		if w.state.CompareAndSwap(workQueued, workTaken) {
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return
	}
	errs := g.commitAll(live)
	for i, w := range live {
		w.done <- errs[i]
	}
}

// commitAll returns each work's outcome: its own error, or the group's.
func (g *groupCommit) commitAll(works []*groupWork) []error {
	errs := make([]error, len(works))
	// fail gives every work the group's error, but a work's own error,
	// which tells more (SQLite may have rolled the whole transaction back
	// on it, and then the savepoint is gone).
	fail := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	ctx := context.Background()
	sqlTx, err := g.writeDB.BeginTx(ctx, nil)
	if err != nil {
		return fail(lazyerrors.Error(err))
	}
	tx := wrapTx(sqlTx, g.l)
	tx.keepRunning = true

	if len(works) == 1 {
		// Alone: no savepoint needed, the transaction is the work's.
		if errs[0] = runWork(works[0].f, tx); errs[0] != nil {
			_ = tx.Rollback()
			return errs
		}
	} else {
		for i, w := range works {
			if _, err := sqlTx.ExecContext(ctx, "SAVEPOINT work"); err != nil {
				_ = tx.Rollback()
				return fail(lazyerrors.Error(err))
			}
			errs[i] = runWork(w.f, tx)
			if errs[i] != nil {
				if _, err := sqlTx.ExecContext(ctx, "ROLLBACK TO work"); err != nil {
					_ = tx.Rollback()
					return fail(lazyerrors.Error(err))
				}
			}
			if _, err := sqlTx.ExecContext(ctx, "RELEASE work"); err != nil {
				_ = tx.Rollback()
				return fail(lazyerrors.Error(err))
			}
		}
	}
	if err := tx.Commit(); err != nil {
		// A COMMIT that fails may leave SQLite's transaction open on the
		// connection: end it, or the next group could not begin.
		_, _ = g.writeDB.ExecContext(ctx, "ROLLBACK")
		return fail(lazyerrors.Error(err))
	}
	return errs
}

// runWork runs f, turning a panic into the work's error: the writer
// serves every caller and must not end with one of them.
func runWork(f func(*Tx) error, tx *Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = lazyerrors.Errorf("transaction panicked: %v", p)
		}
	}()
	return f(tx)
}
