package api_test

import (
	"context"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/acrawler/acrawler/internal/api"
	"github.com/acrawler/acrawler/internal/store/sqlite"
	"github.com/acrawler/acrawler/internal/urlnorm"
)

// Serving a crawl database read-only, as `acrawler serve` does, while a
// crawl may still be writing it.
func Example() {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, "crawl.db", sqlite.Options{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	norm, err := urlnorm.New(urlnorm.DefaultOptions())
	if err != nil {
		log.Fatal(err)
	}
	s, err := api.New(api.Config{
		Backend:        api.StoreBackend(st, 100), // the dashboard lists the 100 most fetched hosts
		Normalize:      norm.Normalize,
		PageRankWeight: 0.5,
		Log:            slog.Default(),
	})
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Addr: "127.0.0.1:8080", Handler: s, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: api.DefaultTimeout + 5*time.Second}
	log.Fatal(srv.ListenAndServe())
}
