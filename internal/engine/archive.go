package engine

import (
	"net/http"
	"time"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/extract"
	"github.com/acrawler/acrawler/internal/fetch"
	"github.com/acrawler/acrawler/internal/warc"
)

// Archive keeps raw responses; *warc.Writer is the implementation.
type Archive interface {
	Write(x warc.Exchange) (warc.Location, error)
}

// archive writes one exchange to the WARC archive, if there is one, and
// says where. A failure to archive is logged, never fatal to the fetch.
func (e *Engine) archive(started time.Time, resp *fetch.Response) crawl.WARCRef {
	if e.cfg.Archive == nil || resp == nil {
		return crawl.WARCRef{}
	}
	x := warc.Exchange{
		URL:        resp.URL,
		Method:     http.MethodGet,
		ReqHeader:  resp.RequestHeader,
		Time:       started,
		Status:     resp.Status,
		Proto:      resp.Proto,
		RespHeader: resp.Header,
		Body:       resp.Body,
		Decoded:    resp.Header.Get("Content-Encoding") != "",
	}
	if resp.Truncated {
		x.Truncated = "length"
	}
	loc, err := e.cfg.Archive.Write(x)
	if err != nil {
		e.archiveErrors.Add(1)
		if e.archiveErrors.Load() <= 3 {
			e.cfg.Log.Warn("archive the response", "url", resp.URL, "err", err)
		}
		return crawl.WARCRef{}
	}
	return crawl.WARCRef{File: loc.File, Offset: loc.Offset, Length: loc.Length}
}

// accept is the media types whose bodies the crawl reads.
func (e *Engine) accept(mediaType string) bool {
	return extract.IsHTML(mediaType) || e.cfg.PDF != nil && extract.IsPDF(mediaType) || !e.cfg.NoSitemaps && isXML(mediaType)
}

// isXML reports whether a media type is XML, as a sitemap found through
// an ordinary link is served.
func isXML(mediaType string) bool {
	return mediaType == "application/xml" || mediaType == "text/xml"
}

// bodyLimit is the body limit per media type: PDFs have their own.
func (e *Engine) bodyLimit(mediaType string) int64 {
	if extract.IsPDF(mediaType) {
		return e.cfg.MaxPDFBody
	}
	return 0
}
