export { netifrcModule } from "./module.js";
