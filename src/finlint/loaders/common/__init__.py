"""What every loader shares: finding and reading files (``discovery``), line-aware YAML/JSON
(``yamlload``), one meaning for numbers, booleans and strings (``coerce``), the tolerant reader
of unrendered templates (``templating`` + ``template_text``) and notebook lifecycle scripts."""
