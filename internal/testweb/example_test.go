package testweb_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"

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
