# FBX files as Blender 3.4's exporter writes them, in the settings real files
# come in, and Blender's own reading of each (its FBX importer, then its glTF
# exporter, as blender_export.py does): the files docs/formats/fbx.md §15 checks
# bonebake's FBX source on (testdata/fbx/README.md lists them).
#
#   blender -b --factory-startup --python testdata/fbx/blender_variants.py -- SHARED_TESTDATA OUTDIR [NAME...]
#
# Each variant imports a shared glTF character (or Mixamo's FBX) into an empty
# scene, exports it as NAME.fbx with the variant's FBX export options, then
# reads NAME.fbx back into another empty scene with the importer's default
# options and writes NAME.blender.glb (no images: the test compares geometry).
import json
import os
import sys

import bpy
import numpy

# Blender 3.4's glTF importer still says numpy.bool, which numpy 1.24 removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
shared, outdir, only = args[0], args[1], set(args[2:])

# name: (source file under SHARED_TESTDATA, actions kept (None: all), frame
# range of the scene (None: as imported), FBX export options).
VARIANTS = {
    # The exporter's defaults: -Z forward, Y up, "FBX Units Scale" (the
    # armature and mesh objects scaled 100, UnitScaleFactor 1: centimetres),
    # leaf bones added, every action as a stack, bones in their current pose
    # (the scene's frame) as Lcl, the bind pose only in the clusters.
    "fox.default": ("gltf/Fox.glb", None, None, {}),
    # Z up, Y forward, the scale in UnitScaleFactor (100: metres), "Apply
    # Transform", no leaf bones.
    "fox.zup": ("gltf/Fox.glb", ["Walk"], None, dict(
        axis_forward="Y", axis_up="Z", apply_scale_options="FBX_SCALE_ALL",
        bake_space_transform=True, add_leaf_bones=False)),
    # Bones along X (FBX's convention, Maya's), "Only Deform Bones", scale
    # 0.01 on the objects of a file in metres, the armature as a Root model.
    "cesiumman.xbones": ("gltf/CesiumMan.gltf", None, None, dict(
        primary_bone_axis="X", secondary_bone_axis="Y",
        use_armature_deform_only=True, global_scale=0.01,
        apply_scale_options="FBX_SCALE_UNITS", armature_nodetype="ROOT")),
    # Several skinned meshes and rigid parts, +X forward, Z up,
    # centimetres in the objects (global scale 100, units applied), two
    # actions.
    "robot.cm": ("gltf/threejs/RobotExpressive.glb", ["Wave", "Jump"], None, dict(
        axis_forward="X", axis_up="Z", global_scale=100.0, add_leaf_bones=False)),
    # Mixamo's Y Bot read by Blender and written again: Blender's property
    # templates, no pre-rotations (the joint orients folded into Lcl
    # Rotation), leaf bones, a centimetre file.
    # The meshes decimated to a tenth (their weights carried over) and the
    # clip's first second (frames 1-31 of 30 fps), to keep the file small.
    "mixamo.reexport": ("fbx/mixamo.fbx", None, (1, 31), dict(), 0.1),
    # An animation-only file ("without skin", as Mixamo ships its motions):
    # the fox's armature and its Walk, for --clips onto fox.default.fbx.
    "fox.walk.anim": ("gltf/Fox.glb", ["Walk"], None, dict(object_types={"ARMATURE"})),
}


def empty():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def load(src):
    if src.endswith(".fbx"):
        bpy.ops.import_scene.fbx(filepath=src)
    else:
        bpy.ops.import_scene.gltf(filepath=src)


def dump(path):
    """Blender's evaluated scene at two frames of each stack: the reference
    its glTF exporter does not always keep (it moves objects parented to
    bones)."""
    scene = bpy.context.scene
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    arm = next(o for o in bpy.data.objects if o.type == "ARMATURE")
    tracks = list(arm.animation_data.nla_tracks)
    for tr in tracks:
        tr.mute = True
    out = {"fps": scene.render.fps / scene.render.fps_base, "clips": []}
    height = None
    for tr in tracks:
        tr.mute = False
        act = tr.strips[0].action
        first, last = int(act.frame_range[0]), int(act.frame_range[1])
        for frame in (first, (first + last) // 2):
            scene.frame_set(frame)
            dg = bpy.context.evaluated_depsgraph_get()
            pts = []
            for o in meshes:
                ev = o.evaluated_get(dg)
                me = ev.to_mesh()
                for v in me.vertices:
                    p = ev.matrix_world @ v.co
                    pts.append((p.x, p.z, -p.y))
                ev.to_mesh_clear()
            if height is None:
                ys = [p[1] for p in pts]
                height = max(ys) - min(ys)
                out["unit"] = unit = height * 1e-6
            out["clips"].append({"name": act.name.split("|", 1)[1], "frame": frame - first,
                                 "positions": [round(c / unit) for p in pts for c in p]})
        tr.mute = True
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))


for name, (src, actions, frames, opts, *decimate) in VARIANTS.items():
    if only and name not in only:
        continue
    empty()
    load(os.path.join(shared, src))
    for ratio in decimate:
        # Applied before the armature deforms (the exporter would decimate
        # again at every frame it bakes).
        for ob in bpy.data.objects:
            if ob.type == "MESH":
                bpy.context.view_layer.objects.active = ob
                ob.modifiers.new("decimate", "DECIMATE").ratio = ratio
                bpy.ops.object.modifier_move_to_index(modifier="decimate", index=0)
                bpy.ops.object.modifier_apply(modifier="decimate")
    if actions is not None:
        # The glTF importer names an action ANIMATION_OBJECT.
        for a in list(bpy.data.actions):
            if not any(a.name == k or a.name.startswith(k + "_") for k in actions):
                bpy.data.actions.remove(a)
        # Keep the NLA strips of the kept actions only (the glTF importer
        # stashes every action in a track).
        for ob in bpy.data.objects:
            ad = ob.animation_data
            if ad is None:
                continue
            for tr in list(ad.nla_tracks):
                if not any(s.action is not None for s in tr.strips):
                    ad.nla_tracks.remove(tr)
            if ad.action is None and bpy.data.actions:
                ad.action = bpy.data.actions[0]
    scene = bpy.context.scene
    if frames is not None:
        # The exporter bakes each action over its own range: keys past the
        # range are dropped from the actions.
        scene.frame_start, scene.frame_end = frames
        for a in bpy.data.actions:
            for fc in a.fcurves:
                for k in reversed(range(len(fc.keyframe_points))):
                    if not frames[0] <= fc.keyframe_points[k].co.x <= frames[1]:
                        fc.keyframe_points.remove(fc.keyframe_points[k])
    fbx = os.path.join(outdir, name + ".fbx")
    bpy.ops.export_scene.fbx(filepath=fbx, **opts)
    print("variant", name, "fps", scene.render.fps, "current frame", scene.frame_current,
          "actions", [(a.name, tuple(a.frame_range)) for a in bpy.data.actions])

    if "MESH" not in opts.get("object_types", {"MESH"}):
        continue  # a clip file: the test binds it to its character

    # Blender's reading of its own file, with the importer's defaults.
    empty()
    bpy.ops.import_scene.fbx(filepath=fbx)
    # The importer makes an action OBJECT|STACK of each stack but leaves only
    # one active; the glTF exporter writes the NLA tracks' actions, so each
    # goes into a track of its own (what a user does in the NLA editor).
    for ob in bpy.data.objects:
        mine = [a for a in bpy.data.actions if a.name.startswith(ob.name + "|")]
        if not mine:
            continue
        ob.animation_data_create()
        ob.animation_data.action = None
        for a in mine:
            tr = ob.animation_data.nla_tracks.new()
            tr.name = a.name
            tr.strips.new(a.name, int(a.frame_range[0]), a)
    bpy.ops.export_scene.gltf(filepath=os.path.join(outdir, name + ".blender.glb"),
                              export_format="GLB", export_image_format="NONE")
    dump(os.path.join(outdir, name + ".blender.json"))
    print("reference", name, "actions", [(a.name, tuple(a.frame_range)) for a in bpy.data.actions])
