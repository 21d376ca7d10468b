export { autoscalerModule, terraformModule } from "./module.js";
