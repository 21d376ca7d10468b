// ejs.js is ejs's self-contained browser build; its API is the main entry's.
declare module "ejs/ejs.js" {
  import ejs = require("ejs");
  export = ejs;
}
