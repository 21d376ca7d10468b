export { ciliumModule } from "./module.js";
