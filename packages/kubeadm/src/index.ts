export { kubeadmModule } from "./module.js";
