package mongox

import (
	"errors"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"

	"sharedworld.dev/pkg/problem"
)

func init() { problem.RegisterOutage(IsOutage) }

// IsOutage reports whether err is the driver's way of saying the database
// is down or hanging: a network error or timeout, a server that cannot be
// selected, a cleared connection pool, or an error the driver labels
// retryable. Each means "try again", not a bug.
func IsOutage(err error) bool {
	if mongo.IsNetworkError(err) || mongo.IsTimeout(err) || errors.Is(err, mongo.ErrClientDisconnected) {
		return true
	}
	var selection topology.ServerSelectionError
	var pool driver.RetryablePoolError
	var labeled mongo.LabeledError
	return errors.As(err, &selection) || errors.Is(err, topology.ErrServerSelectionTimeout) ||
		(errors.As(err, &pool) && pool.Retryable()) ||
		(errors.As(err, &labeled) && (labeled.HasErrorLabel("RetryableWriteError") || labeled.HasErrorLabel("TransientTransactionError")))
}
