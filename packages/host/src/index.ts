export { hostModule, hubHostModule } from "./module.js";
