// Copies a .gltf (JSON, data-URI buffers) without its images, textures and
// samplers, so that the packed test files stay small. Usage: node strip.mjs IN OUT
import fs from 'node:fs';
const j = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
delete j.images;
delete j.textures;
delete j.samplers;
for (const m of j.materials || []) {
	if (m.pbrMetallicRoughness) delete m.pbrMetallicRoughness.baseColorTexture;
	delete m.normalTexture;
	delete m.occlusionTexture;
	delete m.emissiveTexture;
}
fs.writeFileSync(process.argv[3], JSON.stringify(j));
