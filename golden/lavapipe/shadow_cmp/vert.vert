#version 450
#define LAVAPIPE_TWIN 1
layout(location = 0) in vec4 position;
void main() { gl_Position = position; }
