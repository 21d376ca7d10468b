export { wireguardModule } from "./module.js";
