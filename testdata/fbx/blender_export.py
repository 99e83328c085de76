# Blender's FBX import then glTF export of a Mixamo FBX, each with its default
# options, as a user would do it by hand: the reference tool's glTF of the same
# character (testdata/fbx/README.md says which Blender and what it made).
#
#   blender -b --factory-startup --python testdata/fbx/blender_export.py -- IN.fbx OUT.glb [auto]
#
# "auto" ticks the importer's "Automatic Bone Orientation" (off by default).
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
src, dst = args[0], args[1]
auto = args[2:] == ["auto"]

# An empty scene: the factory startup's cube, camera and light are not the
# character's.
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.fbx(filepath=src, automatic_bone_orientation=auto)
bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB")

scene = bpy.context.scene
print("blender", bpy.app.version_string, "fps", scene.render.fps,
      "frames", scene.frame_start, scene.frame_end,
      "actions", [(a.name, tuple(a.frame_range)) for a in bpy.data.actions])
