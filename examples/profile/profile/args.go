package profile

import "github.com/mcpfile/mcpfile/runtime"

// Args are the arguments of the create_profile tool.
type Args struct {
	// DisplayName is the name shown on the profile.
	DisplayName string `json:"displayName"`
	// Photo is the profile photo. Leave it out to have the user pick one.
	Photo *runtime.File `json:"photo,omitempty" mcpfile:"accept=image/png|image/jpeg|image/webp,maxSize=2MiB"`
}

// PhotoForm is the form create_profile shows the user when the call has no
// photo: one file field.
type PhotoForm struct {
	// Photo is the profile photo.
	Photo runtime.File `json:"photo" jsonschema:"Profile photo" mcpfile:"accept=image/png|image/jpeg|image/webp,maxSize=2MiB"`
}
