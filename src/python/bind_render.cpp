// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.render and handsim.Camera: a picture of a run's scene (hand, objects, ground,
// contacts) as an (height, width, 3) uint8 numpy array, drawn offscreen by handsim_render's
// software rasteriser (src/render/scene_image.hpp): headless, no GPU or display.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>

#include "arrays.hpp"
#include "bindings.hpp"
#include "py_run.hpp"
#include "scene_image.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using render::Camera;

void bindCamera(py::module_& m) {
  py::class_<Camera>(m, "Camera",
                     "A pinhole camera in the world frame for handsim.render: eye, target, up, "
                     "vertical field of view, image size in pixels.")
      .def(py::init([](const py::object& eye, const py::object& target, const py::object& up,
                       double fov_deg, int width, int height) {
             Camera c;
             c.eye_world = vector3(eye, "eye");
             c.target_world = vector3(target, "target");
             c.up_world = vector3(up, "up");
             c.fov_y = fov_deg * 3.14159265358979323846 / 180.0;
             c.width = width;
             c.height = height;
             c.cameraFromWorld();  // raises for a degenerate camera
             return c;
           }),
           py::arg("eye"), py::arg("target"), py::arg("up") = Eigen::Vector3d(0.0, 0.0, 1.0),
           py::arg("fov_deg") = 40.0, py::arg("width") = 640, py::arg("height") = 480,
           "eye, target [m] and up in the world frame; fov_deg the vertical field of view [deg].")
      .def_static(
          "framing",
          [](PyRun& r, int width, int height) {
            const RunUse use(r);
            return render::framingCamera(r.model(), r.state(), width, height);
          },
          py::arg("run"), py::arg("width") = 640, py::arg("height") = 480,
          "A camera framing the hand and objects of the run's current state (front-right, "
          "above): what render() uses when no camera is given.")
      .def_readwrite("eye", &Camera::eye_world, "Position of the eye, world frame [m].")
      .def_readwrite("target", &Camera::target_world, "Point looked at, world frame [m].")
      .def_readwrite("up", &Camera::up_world, "Direction that is up in the picture, world frame.")
      .def_readwrite("fov_y", &Camera::fov_y, "Vertical field of view [rad].")
      .def_readwrite("width", &Camera::width, "Image width [px].")
      .def_readwrite("height", &Camera::height, "Image height [px].")
      .def_readwrite("near", &Camera::near_m, "Nearest depth drawn [m].")
      .def_readwrite("far", &Camera::far_m, "Farthest depth drawn [m].")
      .def(
          "project",
          [](const Camera& c, const py::object& points) -> py::object {
            if (realArray(points, "points").ndim() == 1)
              return py::cast(c.project(vector3(points, "point")));
            const RowMatrix3d p = rowsOf3(points, "points");
            RowMatrix3d out(p.rows(), 3);
            for (Eigen::Index i = 0; i < p.rows(); ++i)
              out.row(i) = c.project(p.row(i).transpose()).transpose();
            return py::cast(out);
          },
          py::arg("points"),
          "(N, 3) world points [m] -> (N, 3), or one (3,) point -> (3,): pixel column u, pixel row "
          "v (row 0 at the top; "
          "pixel (i, j) covers u in [j, j+1), v in [i, i+1)) and depth along the view [m].");
}

}  // namespace

void bindRender(py::module_& m) {
  bindCamera(m);
  m.def(
      "render",
      [](PyRun& r, std::optional<Camera> camera, int width, int height, bool contacts,
         bool ground) {
        const RunUse use(r);
        const Camera cam =
            camera ? *camera : render::framingCamera(r.model(), r.state(), width, height);
        render::SceneStyle style;
        style.contacts = contacts;
        style.ground = ground;
        render::Image image;
        {
          py::gil_scoped_release release;
          image = render::renderScene(r.model(), r.state(), cam, style);
        }
        py::array_t<std::uint8_t> out({image.height, image.width, 3});
        std::memcpy(out.mutable_data(), image.rgb.data(), image.rgb.size());
        return out;
      },
      py::arg("run"), py::arg("camera") = py::none(), py::arg("width") = 640,
      py::arg("height") = 480, py::arg("contacts") = true, py::arg("ground") = true,
      "A picture of the run's current state: palm, links and objects (their collision meshes), "
      "the ground and a red dot at each contact, as an (height, width, 3) uint8 RGB array, "
      "drawn offscreen in software (no display or GPU). camera: a Camera (its size wins over "
      "width and height), default Camera.framing(run, width, height).");
}

}  // namespace handsim::python
