export { keepalivedModule } from "./module.js";
