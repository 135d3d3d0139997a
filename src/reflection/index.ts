export { reflectionRoutes } from "./reflection-service.js";
export { DescriptorIndex } from "./descriptor-index.js";
