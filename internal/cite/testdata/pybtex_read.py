# Reads a .bib file with pybtex and prints what it found as JSON: for each
# entry its type, its fields as written and decoded, and its authors'
# parts (first+middle, prelast, last, lineage), decoded. Decoding is
# latexcodec's (which pybtex depends on), then protecting braces dropped.
import codecs
import json
import sys

import latexcodec  # noqa: F401 (registers the "ulatex" codec)
from pybtex.database import parse_file
from pybtex.richtext import Text


def dec(s):
    return codecs.decode(s, "ulatex").replace("{", "").replace("}", "")


db = parse_file(sys.argv[1], bib_format="bibtex")
out = []
for key, e in db.entries.items():
    persons = []
    for p in e.persons.get("author", []):
        persons.append([dec(" ".join(x)) for x in (p.first_names + p.middle_names, p.prelast_names, p.last_names, p.lineage_names)])
    out.append({
        "key": key,
        "type": e.type,
        "raw": dict(e.fields.items()),
        "fields": {k: dec(v) for k, v in e.fields.items()},
        # the title as a style that lowercases titles gives it: braced
        # words keep their case
        "lowered": Text.from_latex(e.fields.get("title", "")).lower().render_as("text"),
        "authors": persons,
    })
json.dump(out, sys.stdout, ensure_ascii=False)
