package cite_test

import (
	"os"

	"github.com/acrawler/acrawler/internal/cite"
)

func ExampleWriteBibTeX() {
	works := []cite.Work{{
		ID:             "w1",
		Type:           cite.TypeArticle,
		Title:          "Deep learning for DNA sequencing in İstanbul: 50% faster",
		Authors:        []cite.Name{cite.ParseName("Anna van der Berg"), cite.ParseName("Sato, J."), cite.ParseName("{World Health Organization}")},
		Date:           "2020-03-15",
		ContainerTitle: "Journal of Things & Stuff",
		Volume:         "12",
		Issue:          "3",
		FirstPage:      "12",
		LastPage:       "34",
		DOI:            "10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F",
	}}
	cite.WriteBibTeX(os.Stdout, works)
	// Output:
	// @article{berg2020deep,
	//   author = {van der Berg, Anna and Sato, J. and {World Health Organization}},
	//   title = {Deep learning for {DNA} sequencing in {İstanbul:} 50\% faster},
	//   journal = {Journal of Things \& Stuff},
	//   year = {2020},
	//   month = mar,
	//   volume = {12},
	//   number = {3},
	//   pages = {12--34},
	//   doi = {10.1002/(SICI)1097-4636(199603)30:3<325::AID-JBM5>3.0.CO;2-F},
	// }
}
