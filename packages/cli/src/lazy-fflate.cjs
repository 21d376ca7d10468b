// Bundled into the command only, in place of fflate/browser (tsup.config.ts): fflate builds its Huffman tables when
// it is imported, and most runs never gzip. The require on the first call becomes a lazily initialised part of the
// bundle, so a run that gzips nothing never builds them.
"use strict";

let fflate;

exports.gzipSync = (data, options) => {
  fflate ??= require("fflate/browser");
  return fflate.gzipSync(data, options);
};
