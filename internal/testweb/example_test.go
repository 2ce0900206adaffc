package testweb_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"

	"github.com/acrawler/acrawler/internal/testweb"
)

// The web as an HTTP proxy: every request of the client, whatever its
// host, goes to the test server.
func ExampleNew() {
	web := testweb.New(testweb.Config{Seed: 1})
	srv := httptest.NewServer(web)
	defer srv.Close()
	proxy, _ := url.Parse(srv.URL)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}}

	resp, err := client.Get("http://www.northfield-university.test/")
	if err != nil {
		fmt.Println(err)
		return
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))

	info, _ := web.Lookup("http://www.northfield-university.test/staff-only/directory")
	fmt.Println(info.Kind, info.Disallowed)
	// Output:
	// 200 text/html; charset=utf-8
	// page true
}

// A recrawl's view of the web moving on: after Advance, a conditional
// request for a page answers 304 exactly when the page did not change.
func ExampleWeb_Advance() {
	web := testweb.New(testweb.Config{Seed: 1, PagesPerSite: 20})
	const u = "http://www.northfield-university.test/"
	first := httptest.NewRecorder()
	web.ServeHTTP(first, httptest.NewRequest(http.MethodGet, u, nil))

	web.Advance()
	changed, removed, added := web.Changes()
	fmt.Println("epoch", web.Epoch(), len(changed) > 0, len(removed) > 0, len(added) > 0)

	req := httptest.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("If-None-Match", first.Header().Get("ETag"))
	again := httptest.NewRecorder()
	web.ServeHTTP(again, req)
	fmt.Println(again.Code == http.StatusNotModified, slices.Contains(changed, u))
	// Output:
	// epoch 1 true true true
	// false true
}
