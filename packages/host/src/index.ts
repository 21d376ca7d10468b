export { hostModule } from "./module.js";
