package archive_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/acrawler/acrawler/internal/archive"
)

func ExampleClient_Captures() {
	// A stand-in for the Wayback Machine's CDX API.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `[["original","timestamp","statuscode","mimetype"],
["http://www.example.edu:80/","19970126045828","200","text/html"],
["https://www.example.edu/research/old-project.html","20080315120000","200","text/html"]]`)
	}))
	defer srv.Close()

	c := &archive.Client{Endpoint: srv.URL, HTTP: srv.Client(), UserAgent: "acrawler/0.1"}
	err := c.Captures(context.Background(), "example.edu", 1000, func(cp archive.Capture) error {
		fmt.Println(cp.URL, cp.Time.Format("2006-01-02"), cp.Status, cp.MIME)
		return nil
	})
	fmt.Println(err)
	// Output:
	// http://www.example.edu:80/ 1997-01-26 200 text/html
	// https://www.example.edu/research/old-project.html 2008-03-15 200 text/html
	// <nil>
}
