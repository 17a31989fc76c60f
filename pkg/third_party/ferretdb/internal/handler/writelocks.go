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

package handler

import (
	"sync"

	"github.com/FerretDB/FerretDB/internal/types"
)

// writeLocks (Shared World) make a write that reads before it writes
// atomic. FerretDB v1 carries out an update, a findAndModify or a delete
// as a query and then a write by _id, so two connections could both match
// a version guard and both write. Such a write holds, from its query to its
// commit, the lock of the document its filter names by _id; one whose
// filter names no single _id holds its whole collection, which every
// _id-named write of the collection also waits for. Inserts take no lock:
// the _id's unique index refuses a second document with it.
type writeLocks struct {
	mu    sync.Mutex
	colls map[string]*collectionLocks
}

type collectionLocks struct {
	whole sync.RWMutex // held for reading by an _id-named write
	mu    sync.Mutex
	ids   map[string]*idLock
}

type idLock struct {
	sync.Mutex
	refs int
}

// lock takes the lock of a write with filter to db.coll; unlock releases it.
func (w *writeLocks) lock(db, coll string, filter *types.Document) (unlock func()) {
	w.mu.Lock()
	if w.colls == nil {
		w.colls = map[string]*collectionLocks{}
	}
	key := db + "\x00" + coll
	c := w.colls[key]
	if c == nil {
		c = &collectionLocks{ids: map[string]*idLock{}}
		w.colls[key] = c
	}
	w.mu.Unlock()

	id, ok := filterID(filter)
	if !ok {
		c.whole.Lock()
		return c.whole.Unlock
	}
	c.whole.RLock()
	c.mu.Lock()
	l := c.ids[id]
	if l == nil {
		l = &idLock{}
		c.ids[id] = l
	}
	l.refs++
	c.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		c.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(c.ids, id)
		}
		c.mu.Unlock()
		c.whole.RUnlock()
	}
}

// filterID is the key of the one _id filter names (a string or an
// ObjectID given as a value, not an operator); false for any other filter.
func filterID(filter *types.Document) (string, bool) {
	if filter == nil {
		return "", false
	}
	v, err := filter.Get("_id")
	if err != nil {
		return "", false
	}
	switch id := v.(type) {
	case string:
		return "s" + id, true
	case types.ObjectID:
		return "o" + string(id[:]), true
	}
	return "", false
}
