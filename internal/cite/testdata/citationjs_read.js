// Reads a file with citation-js and prints the CSL-JSON it makes of it.
// Usage: node citationjs_read.js <dir holding node_modules/citation-js> <file> <@bibtex/text|@ris/file|@csl/list+object>
const path = require('path');
const fs = require('fs');
const Cite = require(path.join(process.argv[2], 'node_modules', 'citation-js'));
let data = fs.readFileSync(process.argv[3], 'utf8');
if (process.argv[4] === '@csl/list+object') {
  data = JSON.parse(data);
}
const cite = new Cite(data, { forceType: process.argv[4] });
process.stdout.write(JSON.stringify(cite.format('data', { format: 'object' })));
