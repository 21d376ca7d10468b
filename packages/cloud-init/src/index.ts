export { cloudInitModule } from "./module.js";
