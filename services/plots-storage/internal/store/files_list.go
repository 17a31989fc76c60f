package store

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"sharedworld.dev/pkg/mongox"
	"sharedworld.dev/services/plots-storage/internal/domain"
)

// List returns the files of a tenancy whose path starts with prefix, by
// path, without removed garden files. Valid paths use only characters
// below '~', so every path with the prefix sorts inside [prefix, prefix+"~").
func (s *Files) List(ctx context.Context, plotID, tenancy, prefix string) ([]domain.File, error) {
	filter, _ := listFilter(plotID, tenancy, prefix)
	docs, err := mongox.FindAll[fileDoc](ctx, s.docs(plotID).Collection(), filter,
		options.Find().SetProjection(headFields).SetSort(bson.D{{Key: "path", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("list files: %w", err)
	}
	return filesOf(docs), nil
}

// listFilter is List's query on the database, and the end of its path
// range ("": none).
func listFilter(plotID, tenancy, prefix string) (filter bson.M, to string) {
	filter = bson.M{"plot_id": plotID, "tenancy": tenancy, "removed": bson.M{"$ne": true}}
	if prefix != "" {
		to = prefix + "~"
		filter["path"] = bson.M{"$gte": prefix, "$lt": to}
	}
	return filter, to
}

// filesOf is the files of docs, rows of the database or of the in-memory copy.
func filesOf[D interface{ file() domain.File }](docs []D) []domain.File {
	out := make([]domain.File, len(docs))
	for i, d := range docs {
		out[i] = d.file()
	}
	return out
}

// ListPage returns at most limit of the files List returns whose paths
// sort after after ("": from the first), and how many List returns.
func (s *Files) ListPage(ctx context.Context, plotID, tenancy, prefix, after string, limit int) ([]domain.File, int, error) {
	filter, to := listFilter(plotID, tenancy, prefix)
	total, err := s.docs(plotID).Collection().CountDocuments(ctx, filter)
	if err != nil {
		return nil, 0, fmt.Errorf("count files: %w", err)
	}
	// Past a cursor inside the prefix, the page starts after it.
	if after != "" && after >= prefix {
		paths := bson.M{"$gt": after}
		if to != "" {
			paths["$lt"] = to
		}
		filter["path"] = paths
	}
	docs, err := mongox.FindAll[fileDoc](ctx, s.docs(plotID).Collection(), filter,
		options.Find().SetProjection(headFields).SetSort(bson.D{{Key: "path", Value: 1}}).SetLimit(int64(limit)))
	if err != nil {
		return nil, 0, fmt.Errorf("list files: %w", err)
	}
	return filesOf(docs), int(total), nil
}

// ListVersion is the version of plotID's list: a List after reading it
// answers the same as every List until it moves. ok is false here: other
// replicas write without this process seeing it.
func (s *Files) ListVersion(context.Context, string) (version uint64, ok bool, err error) {
	return 0, false, nil
}
