package testweb

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// Static assets every site links from its pages' heads.

const siteCSS = `/* site stylesheet */
body{margin:0;font-family:system-ui,sans-serif;line-height:1.5}
a{color:#1d3557}a:hover{color:#e63946}
.listing li{margin:.5rem 0}.authors{color:#495057}
.pagination ul{display:flex;gap:.5rem;list-style:none}
.calendar td{width:2rem;text-align:center}
@media print{header,footer,nav{display:none}}
`

const siteJS = `// site script
document.addEventListener('DOMContentLoaded',function(){
  var b=document.querySelector('.cookie-banner');
  if(b&&localStorage.getItem('cookies-ok')){b.hidden=true}
  var links=document.querySelectorAll('a[data-track]');
  for(var i=0;i<links.length;i++){links[i].addEventListener('click',function(){/* analytics */})}
});
`

// logoPNG is a small generated logo.
var logoPNG = func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 36, 12))
	for y := 0; y < 12; y++ {
		for x := 0; x < 36; x++ {
			img.Set(x, y, color.NRGBA{29, 53, 87, uint8(255 - x*3)})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}()

// addAssets registers the stylesheet, script, logo and favicon of s.
func (s *site) addAssets() {
	s.add(&page{key: "/static/css/site.css?v=3", kind: "asset", title: "site.css", ctype: "text/css; charset=utf-8", serve: serveBytes([]byte(siteCSS))})
	s.add(&page{key: "/static/js/site.js", kind: "asset", title: "site.js", ctype: "text/javascript; charset=utf-8", serve: serveBytes([]byte(siteJS))})
	s.add(&page{key: "/static/img/logo.png", kind: "asset", title: "logo.png", ctype: "image/png", serve: serveBytes(logoPNG)})
	s.add(&page{key: "/favicon.ico", kind: "asset", title: "favicon.ico", ctype: "image/png", serve: serveBytes(logoPNG)})
}
