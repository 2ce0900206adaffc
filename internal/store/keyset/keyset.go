// Package keyset is how both stores stream a table in key order: a batch
// of rows per query, each query starting after the last key read (keyset
// pagination), so that no transaction or connection is held while the
// caller works and a long stream costs no more per row than a short one.
package keyset

import (
	"context"
	"iter"
)

// Stream yields rows in key order. read returns up to batch rows whose key
// compares with after by op, in key order: op is ">=" for the first read,
// after being the lowest key (math.MinInt64 can be a key), and ">" for the
// next ones, after being the last key read; key returns a row's key. A
// read of fewer than batch rows ends the stream; an error of read is
// yielded once, with the zero row, and ends it. A stopped iteration reads
// no further.
func Stream[T, K any](ctx context.Context, batch int, lowest K,
	read func(ctx context.Context, op string, after K, batch int) ([]T, error), key func(T) K) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		op, after := ">=", lowest
		for {
			got, err := read(ctx, op, after, batch)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, r := range got {
				if !yield(r, nil) {
					return
				}
			}
			if len(got) < batch {
				return
			}
			op, after = ">", key(got[len(got)-1])
		}
	}
}
